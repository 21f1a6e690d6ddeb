#include "sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include "sweep/run_naming.h"
#include "sweep/sweep_error.h"
#include "tests/sweep/sweep_test_files.h"

namespace sinklab::sweep {
namespace {

using testing::ScratchDir;
using testing::write_file;

class SweepPlanTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir / "paper/a.yaml", "seed: 0\n"); }
  std::vector<PlannedRun> expand(const std::string& yaml) {
    return expand_sweep(parse_sweep_spec(yaml, dir / "s.yaml"));
  }
  ScratchDir dir;
};

TEST(RunNaming, CompactValueShortensNumbersOnly) {
  EXPECT_EQ(compact_value("3.0e-4"), "3e-4");
  EXPECT_EQ(compact_value("1.0e-3"), "0.001");
  EXPECT_EQ(compact_value("1e-5"), "1e-5");
  EXPECT_EQ(compact_value("2.50"), "2.5");
  EXPECT_EQ(compact_value("4"), "4");
  EXPECT_EQ(compact_value("1e7"), "1e7");
  EXPECT_EQ(compact_value("relu"), "relu");
  EXPECT_EQ(compact_value("1e-3x"), "1e-3x");
  EXPECT_EQ(sanitize_for_path("a b/c:d=1.5"), "a-b-c-d=1.5");
}

TEST_F(SweepPlanTest, VariantsCrossTheGridInFileOrderLastAxisFastest) {
  const auto runs = expand(
      "base: paper/a.yaml\n"
      "variants:\n"
      "  - name: soft\n"
      "  - name: relu\n"
      "    set: {model.attention.normalizer: relu}\n"
      "grid:\n"
      "  seed: [0, 1]\n"
      "  optimizer.lr: [1.0e-3, 3.0e-4]\n");
  ASSERT_EQ(runs.size(), 8u);
  const std::vector<std::string> ids{
      "soft_lr=0.001_seed=0", "soft_lr=3e-4_seed=0", "soft_lr=0.001_seed=1", "soft_lr=3e-4_seed=1",
      "relu_lr=0.001_seed=0", "relu_lr=3e-4_seed=0", "relu_lr=0.001_seed=1", "relu_lr=3e-4_seed=1"};
  for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].id, ids[i]) << i;
  EXPECT_EQ(runs[5].label, "relu lr=3e-4");
  EXPECT_EQ(runs[5].variant_name, "relu");
  EXPECT_EQ(runs[5].seed, 0);
  EXPECT_EQ(runs[6].seed, 1);
  // The variant's own set comes first, then one value per grid axis, values as written.
  ASSERT_EQ(runs[5].overrides.size(), 3u);
  EXPECT_EQ(runs[5].overrides[0].key, "model.attention.normalizer");
  EXPECT_EQ(runs[5].overrides[0].value, "relu");
  EXPECT_EQ(runs[5].overrides[1].key, "seed");
  EXPECT_EQ(runs[5].overrides[2].key, "optimizer.lr");
  EXPECT_EQ(runs[5].overrides[2].value, "3.0e-4");
  EXPECT_EQ(runs[0].overrides.size(), 2u);
  EXPECT_EQ(runs[0].config, (dir / "paper/a.yaml").lexically_normal());
}

TEST_F(SweepPlanTest, WithoutGridOneRunPerVariant) {
  const auto runs = expand(
      "base: paper/a.yaml\n"
      "variants:\n"
      "  - name: x\n"
      "    set: {seed: 7}\n"
      "  - name: y\n");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, "x_seed=7");  // a seed fixed by the variant still names the run
  EXPECT_EQ(runs[0].label, "x");
  EXPECT_EQ(runs[0].seed, 7);
  EXPECT_EQ(runs[1].id, "y");
  EXPECT_FALSE(runs[1].seed.has_value());
}

TEST_F(SweepPlanTest, LabelsUseFullKeysWhenLastComponentsClash) {
  const auto runs = expand("base: paper/a.yaml\ngrid:\n  model.dim: [2]\n  task.dim: [3]\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].label, "a model.dim=2 task.dim=3");
}

TEST_F(SweepPlanTest, IdsThatCollideAfterNormalizationAreAnError) {
  try {
    expand("base: paper/a.yaml\ngrid:\n  optimizer.lr: [1e-3, 0.001]\n");
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("share the run folder 'a_lr=0.001'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab::sweep
