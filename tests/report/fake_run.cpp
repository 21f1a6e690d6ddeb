#include "tests/report/fake_run.h"

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "run_files/attention_map_files.h"
#include "run_files/run_summary.h"
#include "stats/attention_maps.h"
#include "stats/sink_onset.h"
#include "stats/sink_statistics.h"
#include "tests/support/trigger_roles.h"

namespace sinklab::testing {
namespace {

// One attention tensor [batch, heads, T, T] in the style of the normalizer.
std::vector<float> fake_probs(const FakeRunSpec& spec, int batch, const std::vector<int32_t>& trigger,
                              std::mt19937& gen) {
  const int T = spec.seq_len, H = spec.heads;
  std::uniform_real_distribution<float> jitter(0.0f, spec.jitter);
  std::vector<float> p(static_cast<size_t>(batch) * H * T * T, 0.0f);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < T; ++i) {
        float* row = p.data() + ((static_cast<size_t>(b) * H + h) * T + i) * T;
        const int j = trigger[static_cast<size_t>(b)];
        if (i == j) {  // trigger row: spread over keys 1..j
          for (int k = 1; k <= j; ++k) row[k] = 1.0f / static_cast<float>(j);
        } else if (spec.normalizer == "softmax") {
          const float rest = i == 0 ? 0.0f : jitter(gen);
          row[0] = 1.0f - rest;
          for (int k = 1; k <= i; ++k) row[k] = rest / static_cast<float>(i);
        }  // relu-like: non-trigger rows stay all-zero
      }
  return p;
}

// The roles of `batch` samples: the trigger task's for the trigger rows given, copy's (first half no-op,
// second half active) or text_lm's (only BOS flagged).
std::vector<uint8_t> fake_roles(const FakeRunSpec& spec, const std::vector<int32_t>& trigger) {
  if (spec.task == FakeTask::trigger) return trigger_roles(trigger, spec.seq_len);
  const int T = spec.seq_len;
  std::vector<uint8_t> roles(trigger.size() * static_cast<size_t>(T), 0);
  for (size_t b = 0; b < trigger.size(); ++b) {
    uint8_t* row = roles.data() + b * static_cast<size_t>(T);
    row[0] = position_role::kSinkKey;
    if (spec.task == FakeTask::copy)
      for (int i = 1; i < T; ++i) row[i] = i <= T / 2 ? position_role::kNoOpRow : position_role::kActiveRow;
  }
  return roles;
}

// A token task's numbers: cross-entropy in nats and accuracy, over active and no-op rows where the task has them.
void add_token_metrics(RunSummary& s, const FakeRunSpec& spec) {
  s.eval_mse = s.eval_max_abs_error = std::nan("");
  s.eval_loss = 1.25 + 0.01 * static_cast<double>(spec.seed);
  s.eval_accuracy = 0.625;
  if (spec.task == FakeTask::copy) {
    s.eval_active_loss = 0.5;
    s.eval_active_accuracy = 0.875;
    s.eval_no_op_loss = s.eval_no_op_accuracy = std::nan("");  // copy scores no no-op row
  } else {
    s.eval_active_loss = s.eval_active_accuracy = s.eval_no_op_loss = s.eval_no_op_accuracy = std::nan("");
  }
}

}  // namespace

double write_fake_run(const std::filesystem::path& dir, const FakeRunSpec& spec) {
  std::filesystem::create_directories(dir);
  std::mt19937 gen(static_cast<uint32_t>(spec.seed * 7919 + 1));
  std::uniform_int_distribution<int32_t> pick(2, spec.seq_len - 1);
  std::ofstream(dir / "config.yaml") << "name: " << spec.name << "\n";

  // The onsets from the logged steps, as the trainer finds them (train/trainer.cpp).
  SinkOnsetTracker onsets(static_cast<size_t>(spec.layers) * spec.heads);
  if (!spec.with_metrics) onsets.mark_unknown();
  if (spec.with_metrics) {
    std::ofstream metrics(dir / "metrics.jsonl");
    for (int64_t step = 0; step <= spec.steps; step += 50) {
      std::vector<int32_t> trigger(4);
      for (auto& t : trigger) t = pick(gen);
      SinkStatisticsAccumulator acc(spec.layers, spec.heads, spec.seq_len, 0.3);
      const std::vector<uint8_t> roles = fake_roles(spec, trigger);
      for (int l = 0; l < spec.layers; ++l) acc.add(l, fake_probs(spec, 4, trigger, gen).data(), 4, roles.data());
      MetricsRecord r;
      r.step = step;
      r.loss = 6e-3 / (1.0 + static_cast<double>(step));
      r.max_abs_error = 0.3 / (1.0 + static_cast<double>(step) / 10);
      r.lr = 1e-3;
      r.grad_norm = 0.1;
      r.steps_per_second = 150;
      r.heads = acc.finish();
      onsets.observe(step, r.heads);
      if (spec.task == FakeTask::trigger) {
        if (step % 100 == 0) r.eval_mse = r.loss * 1.1;
      } else {  // cross-entropy in nats; no max_abs_error
        r.loss = 1.0 + 3.0 / (1.0 + static_cast<double>(step) / 50);
        r.max_abs_error = std::nan("");
        r.accuracy = 0.5;
        if (step % 100 == 0) r.eval_loss = r.loss * 1.1;
      }
      if (spec.diverged && step == spec.steps) r.loss = std::nan("");  // written as null
      write_metrics_line(metrics, r);
    }
  }
  if (spec.diverged) {
    RunSummary s;
    s.name = spec.name;
    s.seed = spec.seed;
    s.steps = spec.steps;
    s.stop_reason = RunSummary::kStopNonFinite;
    s.non_finite = "loss is nan at step " + std::to_string(spec.steps);
    s.train_loss = s.eval_mse = s.eval_max_abs_error = s.sink_rate = std::nan("");
    s.wall_seconds = 0.5;
    s.normalizer = spec.normalizer;
    s.layers = spec.layers;
    s.heads_per_layer = spec.heads;
    s.seq_len = spec.seq_len;
    s.eval_trigger = spec.task == FakeTask::trigger ? spec.seq_len / 2 : -1;
    s.sink_eps = 0.3;
    s.uniform_baseline = uniform_causal_baseline(spec.seq_len);
    s.git_revision = "test";
    write_run_summary(dir / "summary.json", s);
    return s.sink_rate;
  }

  const int eval = 16, trigger_pos = spec.seq_len / 2;
  const std::vector<int32_t> trigger(eval, trigger_pos);
  const std::vector<uint8_t> roles = fake_roles(spec, trigger);
  SinkStatisticsAccumulator stats(spec.layers, spec.heads, spec.seq_len, 0.3);
  AttentionMapAccumulator maps(spec.layers, spec.heads, spec.seq_len);
  for (int l = 0; l < spec.layers; ++l) {
    const std::vector<float> probs = fake_probs(spec, eval, trigger, gen);
    stats.add(l, probs.data(), eval, roles.data());
    maps.add(l, probs.data(), eval);
  }
  write_attention_maps(dir / "attention", maps);

  RunSummary s;
  s.name = spec.name;
  s.seed = spec.seed;
  s.steps = spec.steps + static_cast<int64_t>(spec.seed) * 10;
  s.stop_reason = spec.task == FakeTask::trigger ? "max_abs_error" : "max_steps";
  s.reached_stop_rule = spec.task == FakeTask::trigger;
  s.train_loss = 1e-7;
  s.eval_mse = 2e-7 * static_cast<double>(spec.seed + 1);
  s.eval_max_abs_error = 4e-3;
  s.wall_seconds = 1.5;
  s.normalizer = spec.normalizer;
  s.layers = spec.layers;
  s.heads_per_layer = spec.heads;
  s.seq_len = spec.seq_len;
  s.eval_trigger = spec.task == FakeTask::trigger ? trigger_pos : -1;
  if (spec.task != FakeTask::trigger) add_token_metrics(s, spec);
  s.sink_eps = 0.3;
  s.uniform_baseline = uniform_causal_baseline(spec.seq_len);
  s.heads = stats.finish();
  onsets.fill(s.heads);
  s.sink_rate = sink_rate(s.heads);
  double excess = 0;  // as models/evaluation_summary.cpp computes it
  for (const HeadSinkStats& h : s.heads) excess += h.sink_excess;
  s.sink_excess_mean = excess / static_cast<double>(s.heads.size());
  s.threads = 1;
  s.git_revision = "test";
  write_run_summary(dir / "summary.json", s);
  return s.sink_rate;
}

void write_fake_sweep(const std::filesystem::path& dir, const std::string& name,
                      const std::vector<FakeSweepRun>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : runs) {
    write_fake_run(dir / "runs" / r.id, r.spec);
    nlohmann::json entry = {{"id", r.id}, {"variant", r.spec.name}, {"seed", r.spec.seed}, {"dir", "runs/" + r.id}};
    if (!r.sink_class.empty()) entry["class"] = r.sink_class;
    if (!r.predicted.empty()) entry["predicted"] = r.predicted;
    list.push_back(std::move(entry));
  }
  std::ofstream(dir / "sweep.json") << nlohmann::json{{"name", name}, {"runs", list}}.dump(2) << "\n";
}

}  // namespace sinklab::testing
