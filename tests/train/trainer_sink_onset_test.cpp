// The sink onset steps in summary.json: equal to the ones recomputed from metrics.jsonl, and the same
// after a run is killed past its onsets and resumed (the resumed run must replay the kept log lines).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "run_files/run_summary.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

// The paper's 1x1 softmax model, trained fast enough that its BOS sink forms within a short run
// (bos_mass_nontrigger_mean crosses 0.5 near step 40 and 0.9 near step 60).
RunConfig fast_sink_config() {
  const ConfigVocabulary vocab = registered_vocabulary();
  return load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/configs/paper/1x1_softmax.yaml",
                         {"train.max_steps=120", "train.log_every=5", "train.checkpoint_every=10",
                          "train.batch_size=32", "train.stop_max_abs_error=0", "optimizer.lr=1.0e-2",
                          "task.eval_samples=64", "analysis.eval_attention_samples=64", "threads=1"},
                         vocab);
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_sink_onset_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Independently of stats/sink_onset.h: walk the log backwards while the head stays at or above the
// threshold; the onset is the earliest step of that final run.
std::optional<int64_t> onset_from_log(const fs::path& metrics, size_t head, double threshold) {
  std::vector<std::pair<int64_t, double>> steps;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const nlohmann::json& bos = j["heads"][head]["bos_mass_nontrigger_mean"];
    steps.emplace_back(j["step"].get<int64_t>(), bos.is_null() ? -1.0 : bos.get<double>());
  }
  std::optional<int64_t> onset;
  for (auto it = steps.rbegin(); it != steps.rend() && it->second >= threshold; ++it) onset = it->first;
  return onset;
}

TEST(TrainerSinkOnset, SummaryOnsetsEqualTheOnesRecomputedFromTheLogAlsoAfterAResume) {
  const RunConfig c = fast_sink_config();
  const fs::path straight = temp_dir("straight"), killed = temp_dir("killed");
  TrainOptions o;
  o.quiet = true;
  o.run_dir = straight;
  const RunSummary reference = Trainer(c).run(o);
  ASSERT_EQ(reference.heads.size(), 1u);
  const HeadSinkStats& h = reference.heads[0];
  // The run must have a sink with an onset after its first logged step, or nothing is tested.
  ASSERT_TRUE(h.sink_onset_step_50.has_value());
  ASSERT_TRUE(h.sink_onset_step_90.has_value());
  EXPECT_GT(*h.sink_onset_step_50, 0);
  EXPECT_GE(*h.sink_onset_step_90, *h.sink_onset_step_50);
  EXPECT_EQ(h.sink_onset_step_50, onset_from_log(straight / "metrics.jsonl", 0, 0.5));
  EXPECT_EQ(h.sink_onset_step_90, onset_from_log(straight / "metrics.jsonl", 0, 0.9));
  // summary.json carries them.
  const RunSummary written = read_run_summary(straight / "summary.json");
  EXPECT_EQ(written.heads[0].sink_onset_step_50, h.sink_onset_step_50);
  EXPECT_EQ(written.heads[0].sink_onset_step_90, h.sink_onset_step_90);
  EXPECT_EQ(written.heads[0].bos_mass_by_row.size(), 16u);

  // Killed at step 87: the checkpoint after step 80 resumes it, past both onsets, so a resumed run
  // that forgot the logged steps before its checkpoint would report 80 instead.
  o.run_dir = killed;
  o.stop_at_step = 87;
  o.stop_like_a_kill = true;
  { Trainer(c).run(o); }
  ASSERT_LT(*h.sink_onset_step_90, 80);
  o.stop_at_step = -1;
  o.stop_like_a_kill = false;
  o.resume_from = killed / "checkpoint.bin";
  const RunSummary resumed = Trainer(c).run(o);
  EXPECT_EQ(resumed.steps, reference.steps);
  EXPECT_EQ(resumed.heads[0].sink_onset_step_50, h.sink_onset_step_50);
  EXPECT_EQ(resumed.heads[0].sink_onset_step_90, h.sink_onset_step_90);
  EXPECT_EQ(resumed.heads[0].sink_onset_step_50, onset_from_log(killed / "metrics.jsonl", 0, 0.5));
  EXPECT_EQ(resumed.heads[0].bos_mass_by_row, h.bos_mass_by_row);
  fs::remove_all(straight);
  fs::remove_all(killed);
}

}  // namespace
}  // namespace sinklab
