// The training loop under faults: a resumed run cuts metrics.jsonl back to its checkpoint (no step
// logged twice or lost), a run that goes non-finite stops at once with null metrics, and the final
// checkpoint remembers a met stop rule so a run killed before its summary ends as it would have.
#include <gtest/gtest.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "run_files/checkpoint_file.h"
#include "run_files/checkpoint.h"
#include "tests/support/run_files_without_timing.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig config_with(const std::vector<std::string>& overrides) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return parse_run_config(
      "model: {layers: 1, heads: 2, residual: true}\noptimizer: {lr: 3.0e-3}\n"
      "train: {batch_size: 16, max_steps: 40, log_every: 5, eval_every: 10, stop_max_abs_error: 0}\n"
      "task: {eval_samples: 32}\nanalysis: {eval_attention_samples: 32}\n",
      "test.yaml", overrides, vocab);
}

fs::path temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("sinklab_trainer_reliability_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

RunSummary train(const RunConfig& c, const fs::path& dir, int64_t stop_at = -1, const fs::path& resume = {}) {
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  o.stop_at_step = stop_at;
  o.resume_from = resume;
  Trainer t(c);
  return t.run(o);
}

TEST(TrainerReliability, ResumeCutsTheMetricsLogBackToItsCheckpoint) {
  const RunConfig c = config_with({});
  const fs::path straight = temp_dir("straight"), broken = temp_dir("broken");
  train(c, straight);
  train(c, broken, 17);
  // Lines a killed run wrote after its last checkpoint, which the resumed run writes again.
  std::ofstream(broken / "metrics.jsonl", std::ios::app) << "{\"step\": 20, \"from\": \"the killed run\"}\n";
  const RunSummary resumed = train(c, broken, -1, broken / "checkpoint.bin");
  EXPECT_EQ(resumed.steps, 40);
  EXPECT_EQ(testing::without_timing(straight / "metrics.jsonl"), testing::without_timing(broken / "metrics.jsonl"));
  fs::remove_all(straight);
  fs::remove_all(broken);
}

// Rewrites the step a checkpoint's training state carries (the state is the file's last bytes, as many
// as the table's last u64 says, and starts with the step) and the data checksum (header bytes 52-59,
// XXH3-64 over everything after the table, checkpoint format 4), as a forger would.
void forge_checkpoint_step(const fs::path& path, int64_t step) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  in.close();
  uint64_t table_bytes = 0, state_bytes = 0;
  std::memcpy(&table_bytes, bytes.data() + 28, sizeof table_bytes);
  std::memcpy(&state_bytes, bytes.data() + 60 + table_bytes - 8, sizeof state_bytes);
  std::memcpy(bytes.data() + bytes.size() - state_bytes, &step, sizeof step);
  const uint64_t sum = XXH3_64bits(bytes.data() + 60 + table_bytes, bytes.size() - 60 - table_bytes);
  std::memcpy(bytes.data() + 52, &sum, sizeof sum);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(TrainerReliability, AForgedCheckpointStepBeyondTheRunIsRefused) {
  const RunConfig c = config_with({});
  const fs::path dir = temp_dir("forged");
  train(c, dir, 17);
  forge_checkpoint_step(dir / "checkpoint.bin", int64_t{1} << 62);
  try {
    train(c, dir, -1, dir / "checkpoint.bin");
    FAIL() << "a step of 2^62 was resumed";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("step 4611686018427387904 is beyond train.max_steps 40"), std::string::npos)
        << e.what();
  }
  // The true step forged back still loads: the forge is right. (Another step would not: the checkpoint's
  // record of the attention snapshots belongs to step 17.)
  forge_checkpoint_step(dir / "checkpoint.bin", 17);
  EXPECT_EQ(train(c, dir, -1, dir / "checkpoint.bin").steps, 40);
  fs::remove_all(dir);
}

TEST(TrainerReliability, ResumeFromAPeriodicCheckpointIsBitIdentical) {
  const RunConfig c = config_with({"train.checkpoint_every=10"});
  const fs::path straight = temp_dir("periodic-straight"), killed = temp_dir("periodic-killed");
  TrainOptions o;
  o.quiet = true;
  o.run_dir = straight;
  Trainer reference(c);
  reference.run(o);
  o.run_dir = killed;
  o.stop_at_step = 27;
  o.stop_like_a_kill = true;  // leaves the periodic checkpoint written after step 20 (steps 0-19 done)
  { Trainer t(c); t.run(o); }
  o.stop_at_step = -1;
  o.stop_like_a_kill = false;
  o.resume_from = killed / "checkpoint.bin";
  Trainer resumed(c);
  const RunSummary s = resumed.run(o);
  EXPECT_EQ(s.steps, 40);
  const auto a = reference.parameters().values(), b = resumed.parameters().values();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "resumed parameters differ";
  EXPECT_EQ(testing::without_timing(straight / "metrics.jsonl"), testing::without_timing(killed / "metrics.jsonl"));
  fs::remove_all(straight);
  fs::remove_all(killed);
}

TEST(TrainerReliability, NonFiniteLossStopsAtOnceWithNullMetrics) {
  RunConfig c = config_with({});
  c.model.init_std = 1e30;
  const fs::path dir = temp_dir("diverged");
  const RunSummary s = train(c, dir);
  EXPECT_TRUE(s.diverged());
  EXPECT_EQ(s.steps, 0);
  EXPECT_NE(s.non_finite.find("at step 0"), std::string::npos) << s.non_finite;
  EXPECT_TRUE(std::isnan(s.train_loss));
  EXPECT_TRUE(std::isnan(s.eval_mse));
  EXPECT_TRUE(std::isnan(s.eval_max_abs_error));
  EXPECT_TRUE(s.heads.empty());
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
  EXPECT_EQ(j["stop_reason"], "non_finite");
  EXPECT_TRUE(j["eval_mse"].is_null());
  EXPECT_TRUE(j["eval_max_abs_error"].is_null());
  EXPECT_TRUE(j["sink_rate"].is_null());
  EXPECT_EQ(j["heads"].size(), 0u);
  EXPECT_EQ(outcome_of(read_run_summary(dir / "summary.json")), RunOutcome::diverged);
  EXPECT_FALSE(fs::exists(dir / "attention")) << "a diverged run writes no attention maps";
  // Its step-0 line keeps the loss (null) but no head statistics: those of NaN attention are not numbers.
  const std::vector<MetricsRecord> metrics = read_metrics(dir / "metrics.jsonl");
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_TRUE(std::isnan(metrics[0].loss));
  EXPECT_TRUE(metrics[0].heads.empty());
  fs::remove_all(dir);
}

TEST(TrainerReliability, AnExplodingUpdateStopsTheRunAtThatStep) {
  // SGD with a huge learning rate: the loss is finite at step 0, what follows the update is not.
  RunConfig c = config_with({"optimizer.name=sgd", "optimizer.lr=1.0e38"});
  const fs::path dir = temp_dir("temperature");
  const RunSummary s = train(c, dir);
  EXPECT_TRUE(s.diverged()) << s.stop_reason;
  EXPECT_NE(s.non_finite.find("is NaN at step 0"), std::string::npos) << s.non_finite;
  EXPECT_EQ(s.steps, 0);
  fs::remove_all(dir);
}

TEST(TrainerReliability, FinalCheckpointRemembersTheMetStopRule) {
  // Killed after its final checkpoint but before summary.json: resuming must end with the same stop
  // reason, step count and loss, not train on or call it max_steps.
  const RunConfig c = config_with({"train.stop_loss=10.0"});
  const fs::path dir = temp_dir("stop-rule");
  const RunSummary first = train(c, dir);
  ASSERT_EQ(first.stop_reason, "loss");
  fs::remove(dir / "summary.json");
  const RunSummary again = train(c, dir, -1, dir / "checkpoint.bin");
  EXPECT_EQ(again.stop_reason, "loss");
  EXPECT_EQ(again.steps, first.steps);
  EXPECT_EQ(again.train_loss, first.train_loss);
  EXPECT_EQ(again.eval_mse, first.eval_mse);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
