// TrainOptions::on_log: called once per metrics line with what the line holds, and an exception it throws
// stops the run like an interrupt (checkpoint, no summary) and comes out of run(); resuming then
// finishes bit-identically to a run that was never stopped.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "run_files/run_summary.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig small_config() {
  return parse_run_config(
      "model: {layers: 1, heads: 2, residual: true}\noptimizer: {lr: 3.0e-3}\n"
      "train: {batch_size: 16, max_steps: 40, log_every: 10, eval_every: 20}\ntask: {eval_samples: 32}\n"
      "analysis: {eval_attention_samples: 32}\n",
      "on_log.yaml", {}, registered_vocabulary());
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_on_log_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<float> parameters_of(Trainer& t) {
  return {t.parameters().values().begin(), t.parameters().values().end()};
}

TEST(TrainerOnLog, SeesEveryMetricsLineAsWritten) {
  const fs::path dir = temp_dir("lines");
  std::vector<MetricsRecord> seen;
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  o.on_log = [&seen](const MetricsRecord& r) { seen.push_back(r); };
  Trainer t(small_config());
  t.run(o);
  const std::vector<MetricsRecord> written = read_metrics(dir / "metrics.jsonl");
  ASSERT_EQ(seen.size(), written.size());
  ASSERT_EQ(seen.size(), 5u);  // steps 0, 10, 20, 30 and the last one, 39
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].step, written[i].step);
    EXPECT_EQ(seen[i].loss, written[i].loss);
    EXPECT_EQ(seen[i].heads.size(), written[i].heads.size());
  }
  EXPECT_EQ(seen[2].step, 20);
  EXPECT_EQ(seen[2].eval_mse, written[2].eval_mse);  // evaluated steps carry their evaluation
  fs::remove_all(dir);
}

TEST(TrainerOnLog, AnExceptionStopsAtACheckpointAndResumingFinishesBitIdentically) {
  Trainer straight(small_config());
  TrainOptions quiet;
  quiet.quiet = true;
  straight.run(quiet);
  const std::vector<float> reference = parameters_of(straight);

  const fs::path dir = temp_dir("stop");
  TrainOptions first = quiet;
  first.run_dir = dir;
  first.on_log = [](const MetricsRecord& r) {
    if (r.step == 10) throw std::runtime_error("stop here");
  };
  {
    Trainer t(small_config());
    EXPECT_THROW(
        {
          try {
            t.run(first);
          } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "stop here");
            throw;
          }
        },
        std::runtime_error);
  }
  EXPECT_FALSE(fs::exists(dir / "summary.json")) << "a stopped run must not look finished";
  ASSERT_TRUE(fs::exists(dir / "checkpoint.bin"));
  EXPECT_EQ(read_metrics(dir / "metrics.jsonl").size(), 2u);  // steps 0 and 10, nothing after

  TrainOptions second = quiet;
  second.run_dir = dir;
  second.resume_from = dir / "checkpoint.bin";
  Trainer resumed(small_config());
  const RunSummary s = resumed.run(second);
  EXPECT_EQ(s.steps, 40);
  const std::vector<float> after = parameters_of(resumed);
  ASSERT_EQ(after.size(), reference.size());
  EXPECT_EQ(0, std::memcmp(after.data(), reference.data(), after.size() * sizeof(float)));
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
