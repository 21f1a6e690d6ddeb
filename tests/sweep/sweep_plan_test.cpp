#include "sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include <chrono>

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
  EXPECT_EQ(runs[5].label, "relu, lr=3e-4");  // several variants: the name, then the grid values
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
  const auto runs = expand("base: paper/a.yaml\ngrid:\n  model.dim: [2, 4]\n  task.dim: [3, 5]\n");
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].label, "model.dim=2, task.dim=3");
}

TEST_F(SweepPlanTest, OneBaseConfigIsLabelledByItsGridValuesAlone) {
  const auto runs = expand(
      "base: paper/a.yaml\n"
      "grid:\n"
      "  model.attention.normalizer: [softmax, relu]\n"
      "  seed: [0, 1]\n"
      "  model.layers: [1, 2]\n");
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].label, "normalizer=softmax, layers=1");
  EXPECT_EQ(runs[7].label, "normalizer=relu, layers=2");
  EXPECT_EQ(runs[7].variant_name, "a");
  // Run folder names keep the config's name, so folders of sweeps run before labels changed resume.
  EXPECT_EQ(runs[0].id, "a_normalizer=softmax_layers=1_seed=0");
  EXPECT_EQ(runs[7].id, "a_normalizer=relu_layers=2_seed=1");
}

TEST_F(SweepPlanTest, OneValueGridAxesAreLeftOutOfLabelsNotIds) {
  const auto runs =
      expand("base: paper/a.yaml\ngrid:\n  train.max_steps: [30]\n  model.attention.normalizer: [softmax, relu]\n");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].label, "normalizer=relu");  // every run has max_steps=30: it does not tell them apart
  EXPECT_EQ(runs[1].id, "a_max_steps=30_normalizer=relu");
  EXPECT_EQ(expand("base: paper/a.yaml\ngrid:\n  train.max_steps: 30\n")[0].label, "a");
}

TEST_F(SweepPlanTest, OneVariantWithOnlySeedsKeepsItsName) {
  auto runs = expand("base: paper/a.yaml\ngrid:\n  seed: [0, 1]\n");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].label, "a");  // nothing else differs, yet the variant needs a name
  EXPECT_EQ(runs[1].id, "a_seed=1");
  runs = expand("base: paper/a.yaml\nvariants:\n  - name: fast\n    set: {train.max_steps: 9}\n"
                "grid:\n  optimizer.lr: [1e-3, 3e-4]\n");
  EXPECT_EQ(runs[0].label, "lr=0.001");  // a single named variant is the same for every run too
  EXPECT_EQ(runs[0].id, "fast_lr=0.001");
}

TEST_F(SweepPlanTest, IdsThatCollideAfterNormalizationAreAnError) {
  try {
    expand("base: paper/a.yaml\ngrid:\n  optimizer.lr: [1e-3, 0.001]\n");
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("share the run folder 'a_lr=0.001'"), std::string::npos) << e.what();
  }
}


// A list of `count` distinct values, "[0, 1, ..., count-1]".
std::string value_list(int count) {
  std::string text = "[";
  for (int i = 0; i < count; ++i) text += (i ? ", " : "") + std::to_string(i);
  return text + "]";
}

TEST_F(SweepPlanTest, HugeGridIsRefusedBeforeExpandingWithItsKeysAndSizes) {
  const auto start = std::chrono::steady_clock::now();
  try {
    expand("base: paper/a.yaml\nvariants:\n  - name: x\n  - name: y\ngrid:\n  seed: " + value_list(1000) +
           "\n  optimizer.lr: " + value_list(1000) + "\n  model.heads: " + value_list(1000) + "\n");
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir / "s.yaml").string()), std::string::npos) << what;
    EXPECT_NE(what.find("2000000000 runs"), std::string::npos) << what;
    EXPECT_NE(what.find("2 variants x seed (1000 values) x optimizer.lr (1000 values) x model.heads (1000 values)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("at most " + std::to_string(kMaxSweepRuns)), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(SweepPlanTest, GridWhoseRunCountOverflowsIsRefusedWithoutWrapping) {
  std::string grid;
  for (int k = 0; k < 8; ++k) grid += "  k" + std::to_string(k) + ".x: " + value_list(1000) + "\n";
  try {
    expand("base: paper/a.yaml\ngrid:\n" + grid);
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 2^64 runs"), std::string::npos) << e.what();
  }
}

TEST_F(SweepPlanTest, GridAtTheLimitExpands) {
  EXPECT_EQ(
      expand("base: paper/a.yaml\ngrid:\n  seed: " + value_list(1000) + "\n  optimizer.lr: " + value_list(100) + "\n")
          .size(),
      kMaxSweepRuns);
}

TEST_F(SweepPlanTest, RunFolderNamesLongerThanTheLimitAreRefusedUpFront) {
  const std::string variant(60, 'v');
  const std::string value(50, 'x');
  try {
    expand("base: paper/a.yaml\nvariants:\n  - name: " + variant + "\ngrid:\n  optimizer.lr: [" + value +
           "]\n  seed: [123]\n");
    FAIL() << "expected SweepError";
  } catch (const SweepError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir / "s.yaml").string() + ":3:"), std::string::npos) << what;
    EXPECT_NE(what.find(variant + "_lr=" + value + "_seed=123"), std::string::npos) << what;
    EXPECT_NE(what.find("at most " + std::to_string(kMaxNameBytes) + " bytes"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sinklab::sweep
