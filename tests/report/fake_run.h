#pragma once
// Writes small but complete run and sweep directories (summary.json, metrics.jsonl, attention/*.npy,
// sweep.json) with synthetic softmax-like (BOS sink) or relu-like (zero rows) attention, so report
// code can be tested without training anything.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sinklab::testing {

// The task a fake run was trained on, as its files show it: the trigger task (regression, a fixed
// trigger row, no-op rows), copy (tokens; no-op rows, then active rows) or text_lm (tokens; BOS the
// only flagged position: no no-op or active rows).
enum class FakeTask { trigger, copy, text_lm };

struct FakeRunSpec {
  FakeTask task = FakeTask::trigger;
  std::string name = "1x1_softmax";
  std::string normalizer = "softmax";  // "softmax" sinks on BOS, anything else gets relu-like rows
  int layers = 1, heads = 1, seq_len = 8;
  uint64_t seed = 0;
  int64_t steps = 300;
  bool with_metrics = true;
  // Softmax-like non-trigger rows put U(0, jitter) of their mass off BOS: the spread the std maps show.
  float jitter = 0.05f;
  // A run whose loss went non-finite: summary.json with stop_reason non_finite, null metrics and no
  // heads, metrics.jsonl ending in a null loss, no attention maps.
  bool diverged = false;
};

// Creates dir with every run file; returns the summary's sink_rate for checks.
double write_fake_run(const std::filesystem::path& dir, const FakeRunSpec& spec);

struct FakeSweepRun {
  std::string id;
  FakeRunSpec spec;
  std::string sink_class = {}, predicted = {};  // written to sweep.json when not empty
};

// sweep.json plus runs/<id>/ for each run.
void write_fake_sweep(const std::filesystem::path& dir, const std::string& name, const std::vector<FakeSweepRun>& runs);

}  // namespace sinklab::testing
