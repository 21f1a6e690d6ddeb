// The observed-attention bound of config_loading/evaluation_work.h: task.eval_seq_len 20000 on the 1x1
// paper run (4e11 weights, days of evaluation after 2 training steps) and snapshots over 10^7 inputs of
// length 128 are refused before the run starts, naming their keys; every shipped config passes.
#include "config_loading/evaluation_work.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

ConfigError error_of(const std::string& yaml, const std::vector<std::string>& sets) {
  try {
    parse_run_config(yaml, "configs/x.yaml", sets, testing::test_vocab(), 1e6 * kGiB);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return ConfigError("", 0, "", "no error");
}

TEST(EvaluationWork, ALongEvaluationLengthIsRefusedNamingItsKeys) {
  const std::string yaml = "seed: 1\nmodel:\n  positional: none\n";
  const RunConfig fits =
      parse_run_config(yaml, "x.yaml", {"task.eval_seq_len=2048"}, testing::test_vocab(), 1e6 * kGiB);
  EXPECT_LT(evaluation_attention_weights(fits), kMaxObservedAttentionWeights);
  const ConfigError e = error_of(yaml, {"task.eval_seq_len=20000"});
  EXPECT_EQ(e.key(), "task.eval_seq_len");
  EXPECT_TRUE(contains(e.detail(), "each evaluation would observe 4e+11 attention weights "
                                   "(analysis.eval_attention_samples=1000 x model.layers=1 x model.heads=1 x "
                                   "task.eval_seq_len=20000 squared)")) << e.what();
  // Fewer observed inputs make the same length acceptable.
  EXPECT_NO_THROW(parse_run_config(yaml, "x.yaml", {"task.eval_seq_len=20000", "analysis.eval_attention_samples=16",
                                                    "analysis.snapshot_every=0"},
                                   testing::test_vocab(), 1e6 * kGiB));
}

TEST(EvaluationWork, SnapshotsOverTenMillionInputsAreRefusedNamingTheKey) {
  const ConfigError e = error_of("seed: 1\n", {"task.seq_len=128", "task.eval_samples=10000000",
                                               "analysis.snapshot_samples=10000000"});
  EXPECT_EQ(e.key(), "analysis.snapshot_samples");
  EXPECT_TRUE(contains(e.detail(), "each attention snapshot would observe")) << e.what();
}

TEST(EvaluationWork, EveryShippedConfigPasses) {
  const std::filesystem::path configs = std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(configs)) {
    if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "sweeps") continue;
    SCOPED_TRACE(entry.path().string());
    try {
      const RunConfig c = load_run_config(entry.path(), {}, testing::test_vocab(), std::nullopt);
      EXPECT_LE(evaluation_attention_weights(c), kMaxObservedAttentionWeights);
      EXPECT_LE(snapshot_attention_weights(c), kMaxObservedAttentionWeights);
    } catch (const ConfigError&) {
      // not a run config on its own (a fragment, or a task the test vocabulary lacks)
    }
  }
}

}  // namespace
}  // namespace sinklab
