#include "config_loading/evaluation_work.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "data/task_registry.h"

namespace sinklab {
namespace {

// The evaluation set's length (BOS included where the task adds one), as the memory estimate counts it.
double evaluation_length(const RunConfig& c) {
  const double T = task_shape_of(c.task, c.model.residual).seq_len;
  return c.task.eval_seq_len > 0 ? T - c.task.seq_len + c.task.eval_seq_len : T;
}

double weights_per_input(const RunConfig& c) {
  const double T = evaluation_length(c);
  return static_cast<double>(c.model.layers) * c.model.heads * T * T;
}

std::string scientific(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

}  // namespace

double evaluation_attention_weights(const RunConfig& c) {
  return std::min(c.analysis.eval_attention_samples, c.task.eval_samples) * weights_per_input(c);
}

double snapshot_attention_weights(const RunConfig& c) {
  return c.analysis.snapshot_every > 0 ? c.analysis.snapshot_samples * weights_per_input(c) : 0.0;
}

void check_evaluation_work(const RunConfig& c, const KeyLocations& where) {
  const bool longer = c.task.eval_seq_len > 0;
  const std::string length = longer ? "task.eval_seq_len" : "task.seq_len";
  const int T = longer ? c.task.eval_seq_len : c.task.seq_len;
  const auto refuse = [&](const std::string& samples_key, int samples, double weights, const char* what) {
    const std::vector<std::string> keys{samples_key, length, "model.layers", "model.heads"};
    throw where.error_at_first_set(
        keys, std::string(what) + " would observe " + scientific(weights) + " attention weights (" + samples_key +
                  "=" + std::to_string(samples) + " x model.layers=" + std::to_string(c.model.layers) +
                  " x model.heads=" + std::to_string(c.model.heads) + " x " + length + "=" + std::to_string(T) +
                  " squared), more than the " + scientific(kMaxObservedAttentionWeights) +
                  " that take hours on one core; lower " + samples_key + " or " + length);
  };
  if (evaluation_attention_weights(c) > kMaxObservedAttentionWeights)
    refuse("analysis.eval_attention_samples", std::min(c.analysis.eval_attention_samples, c.task.eval_samples),
           evaluation_attention_weights(c), "each evaluation");
  if (snapshot_attention_weights(c) > kMaxObservedAttentionWeights)
    refuse("analysis.snapshot_samples", c.analysis.snapshot_samples, snapshot_attention_weights(c),
           "each attention snapshot");
}

}  // namespace sinklab
