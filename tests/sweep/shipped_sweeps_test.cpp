// The sweep files in configs/ must stay valid as the config schema evolves.
#include <gtest/gtest.h>

#include <filesystem>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_validation.h"

namespace sinklab::sweep {
namespace {

const std::filesystem::path kConfigs = std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs";

std::vector<PlannedRun> plan_and_validate(const std::filesystem::path& file) {
  const SweepSpec spec = load_sweep_spec(file);
  std::vector<PlannedRun> runs = expand_sweep(spec);
  validate_sweep(spec, runs, ConfigVocabulary{});
  return runs;
}

TEST(ShippedSweeps, PaperReproductionIsSixRunsTimesFiveSeeds) {
  const auto runs = plan_and_validate(kConfigs / "paper/reproduce.yaml");
  ASSERT_EQ(runs.size(), 30u);
  EXPECT_EQ(runs.front().id, "1x1_softmax_seed=0");
  EXPECT_EQ(runs.back().id, "4x4_relu_seed=4");
  EXPECT_EQ(runs[7].label, "1x1_relu");
  EXPECT_EQ(runs[7].seed, 2);
  EXPECT_EQ(runs[7].config.filename(), "1x1_relu.yaml");
}

TEST(ShippedSweeps, LearningRateSweepIsLabelledByTheRateAlone) {
  const SweepSpec spec = load_sweep_spec(kConfigs / "sweeps/lr_1x1_softmax.yaml");
  EXPECT_EQ(spec.title, "lr-1x1-softmax");
  const auto runs = expand_sweep(spec);
  ASSERT_EQ(runs.size(), 9u);
  EXPECT_EQ(runs[0].label, "lr=0.003");  // was "1x1_softmax lr=0.003": one config, so only lr differs
  EXPECT_EQ(runs[8].label, "lr=3e-4");
  EXPECT_EQ(runs[0].id, "1x1_softmax_lr=0.003_seed=0");
}

TEST(ShippedSweeps, EveryExampleExpandsAndValidates) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kConfigs / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(plan_and_validate(entry.path()).empty());
  }
  EXPECT_GE(files, 3);
}

}  // namespace
}  // namespace sinklab::sweep
