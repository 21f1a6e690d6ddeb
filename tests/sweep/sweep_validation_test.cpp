#include "sweep/sweep_validation.h"

#include <gtest/gtest.h>

#include "config_loading/memory_estimate.h"
#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

class SweepValidationTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir / "paper/a.yaml", "seed: 11\nmodel:\n  layers: 1\n"); }

  // Plans and validates; returns the error message, "" when valid.
  std::string validate(const std::string& yaml, int jobs = 1) {
    try {
      const SweepSpec spec = parse_sweep_spec(yaml, dir / "s.yaml");
      runs = expand_sweep(spec);
      validate_sweep(spec, runs, ConfigVocabulary{}, jobs);
    } catch (const SweepError& e) {
      return e.what();
    }
    return "";
  }

  ScratchDir dir;
  std::vector<PlannedRun> runs;
};

// Runs that fit one at a time but not `--jobs` of them side by side are refused before any starts.
TEST_F(SweepValidationTest, JobsRunsSideBySideMustFitTogether) {
  const std::optional<double> available = available_memory();
  ASSERT_TRUE(available.has_value());
  // The smallest batch whose run needs more than 40 % of the memory: one fits, three do not.
  int batch = 1024;
  const auto estimate = [this](int b) {
    return estimate_memory(
               load_run_config(dir / "paper/a.yaml", {"train.batch_size=" + std::to_string(b)}, ConfigVocabulary{}))
        .total();
  };
  while (estimate(batch) < 0.4 * *available) batch *= 2;
  ASSERT_LT(estimate(batch), 0.9 * *available) << "one run must fit alone";
  const std::string sweep = "base: paper/a.yaml\nvariants:\n  - name: big\n    set: {train.batch_size: " +
                            std::to_string(batch) + "}\ngrid:\n  seed: [1, 2, 3]\n";
  EXPECT_EQ(validate(sweep, 1), "");
  const std::string e = validate(sweep, 3);
  EXPECT_NE(e.find("--jobs 3: the 3 largest runs side by side need an estimated "), std::string::npos) << e;
  EXPECT_NE(e.find("lower --jobs"), std::string::npos) << e;
  const std::string capped = validate(sweep, 64);  // never more side by side than there are runs
  EXPECT_NE(capped.find("--jobs 3: the 3 largest"), std::string::npos) << capped;
}

TEST_F(SweepValidationTest, ValidSweepPassesAndTakesTheSeedFromTheConfigWhenUnset) {
  EXPECT_EQ(validate("base: paper/a.yaml\ngrid:\n  optimizer.lr: [1e-3, 1e-4]\n"), "");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].seed, 11);
  EXPECT_EQ(validate("base: paper/a.yaml\ngrid:\n  seed: [3]\n"), "");
  EXPECT_EQ(runs[0].seed, 3);
}

TEST_F(SweepValidationTest, InvalidGridKeyNamesSweepFileLineKeyAndSuggestion) {
  const std::string message = validate(
      "base: paper/a.yaml\n"
      "grid:\n"
      "  seed: [0, 1]\n"
      "  optimizer.lrr: [1e-3]\n");
  const std::string where = (dir / "s.yaml").string() + ":4: grid key 'optimizer.lrr'";
  EXPECT_EQ(message.rfind(where, 0), 0u) << message;
  EXPECT_NE(message.find("variant 'a'"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'lr'"), std::string::npos) << message;
}

TEST_F(SweepValidationTest, InvalidSetValueNamesTheVariant) {
  const std::string message = validate(
      "base: paper/a.yaml\n"
      "variants:\n"
      "  - name: fine\n"
      "  - name: broken\n"
      "    set: {model.layers: two}\n");
  EXPECT_EQ(message.rfind((dir / "s.yaml").string() + ":5: set key 'model.layers' = two for variant 'broken'", 0),
            0u)
      << message;
  EXPECT_NE(message.find("model.layers: "), std::string::npos) << message;
}

TEST_F(SweepValidationTest, BrokenConfigFileIsReportedWithItsOwnLocation) {
  write_file(dir / "paper/bad.yaml", "seed: 0\nmodle:\n  layers: 1\n");
  const std::string message = validate("variants:\n  - name: v\n    config: paper/bad.yaml\n");
  EXPECT_NE(message.find("s.yaml:2: variant 'v'"), std::string::npos) << message;
  EXPECT_NE(message.find("bad.yaml:2: modle"), std::string::npos) << message;
}

}  // namespace
}  // namespace sinklab::sweep
