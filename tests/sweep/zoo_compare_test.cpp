// The zoo comparison with the real `sinklab train`: a softmax (class S) and a relu (class Z) variant
// train until the stop rule, and the report's zoo table and figures come from their real run files.
#include <gtest/gtest.h>

#include <sstream>

#include "sweep/compare_sweep.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::read_file;
using testing::ScratchDir;
using testing::write_file;

TEST(ZooCompare, RealRunsGiveTheZooTableAndFigures) {
  const std::filesystem::path binary = std::filesystem::path(SINKLAB_BINARY_DIR) / "sinklab";
  if (!std::filesystem::exists(binary))
    GTEST_SKIP() << binary << " is not built (cmake --build build --target sinklab)";
  ScratchDir dir;
  // The paper's 1x1 task: softmax stops after about 880 steps with its BOS sink, relu after about 700
  // with empty no-op rows; 1500 steps leave room for both.
  write_file(dir / "zoo.yaml",
             "name: zoo-e2e\nbase: " + std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/1x1_softmax.yaml\n"
             "variants:\n"
             "  - name: softmax\n    class: S\n    predicted: stops with a BOS sink\n    set: {train.max_steps: 1500}\n"
             "  - name: relu\n    class: Z\n    predicted: stops with empty rows\n"
             "    set: {model.attention.normalizer: relu, train.max_steps: 1500}\n"
             "grid:\n  seed: [0]\n");
  CompareOptions options;
  options.sweep_file = dir / "zoo.yaml";
  options.out_dir = dir / "out";
  options.jobs = 2;
  options.executable = binary;
  options.render_plots = false;
  std::ostringstream out, err;
  ASSERT_EQ(compare_sweep(options, out, err), 0) << out.str() << err.str();

  const std::string md = read_file(dir / "out/report/summary.md");
  const auto s = md.find("| **S: simplex rows (BOS sink necessary)** |");
  const auto z = md.find("| **Z: all-zero rows possible (no sink needed)** |");
  ASSERT_NE(s, std::string::npos) << md;
  ASSERT_NE(z, std::string::npos) << md;
  const std::string softmax_row =
      md.substr(md.find("| softmax |", s), md.find('\n', md.find("| softmax |", s)) - md.find("| softmax |", s));
  const std::string relu_row =
      md.substr(md.find("| relu |", z), md.find('\n', md.find("| relu |", z)) - md.find("| relu |", z));
  EXPECT_NE(softmax_row.find("| 1/1 |"), std::string::npos) << softmax_row;
  EXPECT_NE(softmax_row.find("| stops with a BOS sink | pass 1/1 |"), std::string::npos) << softmax_row;
  EXPECT_NE(relu_row.find("| 1/1 |"), std::string::npos) << relu_row;
  EXPECT_NE(relu_row.find("| stops with empty rows | pass 1/1 |"), std::string::npos) << relu_row;

  const std::string heat = read_file(dir / "out/report/figures/zoo_attention.gp");
  EXPECT_NE(heat.find("set multiplot layout 1,2"), std::string::npos) << heat;
  // The softmax line ends with its sink built, the relu line near 0.
  const std::string bos = read_file(dir / "out/report/figures/zoo_bos_vs_step.dat");
  const auto relu_block = bos.find("# relu seed 0\n");
  ASSERT_NE(relu_block, std::string::npos) << bos;
  const std::string softmax_part = bos.substr(0, relu_block);
  const auto last_line = softmax_part.rfind('\n', softmax_part.size() - 4);
  EXPECT_GT(std::stod(softmax_part.substr(softmax_part.find(' ', last_line) + 1)), 0.9) << softmax_part;
  EXPECT_NE(out.str().find("measured (class gate)"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace sinklab::sweep
