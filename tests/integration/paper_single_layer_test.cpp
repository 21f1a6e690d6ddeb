// The sink paper's single-layer results, trained for real (Ran-Milo 2026, arXiv 2603.11487, sections 4-5;
// docs/reproducing-sinks.md): 1x1 softmax reaches the stop rule with BOS mass >= 0.99 on non-trigger rows and a trigger
// row within 0.02 of 1/7 on keys 1..7; 1x1 relu reaches it with no mass on the content keys of non-trigger rows (<=
// 1e-3) and at most 1e-3 in total. Three seeds each, from the paper configs. Mass left on BOS is not pushed to zero by
// training where W_O W_V maps the BOS vector to ~0 (it changes no output): seed 2 keeps 5.3e-4 on BOS with the
// per-sample data streams (it kept 1.9e-3 with the single-stream generator used before; docs/reproducing-sinks.md). The
// content-key bound is the one the paper's argument is about; the total bound is the criterion.
#include <gtest/gtest.h>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

RunConfig paper_config(const std::string& name, uint64_t seed) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/" + name + ".yaml",
                         {"seed=" + std::to_string(seed)}, vocab);
}

class SingleLayerSeeds : public ::testing::TestWithParam<uint64_t> {};

TEST_P(SingleLayerSeeds, SoftmaxSinksOnBos) {
  Trainer trainer(paper_config("1x1_softmax", GetParam()));
  TrainOptions options;
  options.quiet = true;
  const RunSummary s = trainer.run(options);
  EXPECT_EQ(s.stop_reason, "max_abs_error");
  ASSERT_EQ(s.heads.size(), 1u);
  const HeadSinkStats& h = s.heads[0];
  EXPECT_GE(h.bos_mass_nontrigger_mean, 0.99);
  EXPECT_NEAR(h.trigger_keys_mean, 1.0 / 7.0, 0.02);
  EXPECT_LE(h.trigger_keys_max_deviation, 0.02);
  EXPECT_TRUE(h.sink_head);
}

TEST_P(SingleLayerSeeds, ReluHasNoMassOnNonTriggerRows) {
  Trainer trainer(paper_config("1x1_relu", GetParam()));
  TrainOptions options;
  options.quiet = true;
  const RunSummary s = trainer.run(options);
  EXPECT_EQ(s.stop_reason, "max_abs_error");
  ASSERT_EQ(s.heads.size(), 1u);
  EXPECT_LE(s.heads[0].nonbos_mass_nontrigger_mean, 1e-3);
  EXPECT_LE(s.heads[0].mass_nontrigger_mean, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Paper, SingleLayerSeeds, ::testing::Values(0u, 1u, 2u));

}  // namespace
}  // namespace sinklab
