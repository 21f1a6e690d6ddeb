#include "data/trigger_conditional_task.h"

#include <algorithm>
#include <string>

namespace sinklab {
namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw TaskError("trigger_conditional task: " + message);
}

}  // namespace

TriggerConditionalTask::TriggerConditionalTask(const TaskConfig& config, bool residual_model)
    : dim_(config.dim),
      seq_len_(config.seq_len),
      trigger_min_(config.trigger_min),
      trigger_max_(resolved_trigger_max(config)),
      eval_trigger_(config.eval_trigger),
      residual_target_(resolved_target(config, residual_model) == TargetKind::residual) {
  // The config loader already checks these; a TaskConfig built in code gets the same guarantees.
  require(dim_ >= 4, "dim must be >= 4 (BOS flag, trigger flag, content, ordinary flag), got " + std::to_string(dim_));
  require(seq_len_ >= 3, "seq_len must be >= 3, got " + std::to_string(seq_len_));
  require(trigger_min_ >= 1 && trigger_min_ <= trigger_max_ && trigger_max_ <= seq_len_ - 1,
          "need 1 <= trigger_min <= trigger_max <= seq_len - 1, got trigger_min " + std::to_string(trigger_min_) +
              ", trigger_max " + std::to_string(trigger_max_) + ", seq_len " + std::to_string(seq_len_));
  require(eval_trigger_ >= 1 && eval_trigger_ <= seq_len_ - 1,
          "eval_trigger must be in 1 .. seq_len - 1, got " + std::to_string(eval_trigger_));
}

void TriggerConditionalTask::sample(int batch, Rng& rng, Split split, BatchView out) const {
  // Test first: building the message eagerly would allocate on every call.
  if (batch < 0) throw TaskError("trigger_conditional task: batch must be >= 0, got " + std::to_string(batch));
  const std::size_t rows = static_cast<std::size_t>(seq_len_) * static_cast<std::size_t>(dim_);
  const auto span = static_cast<uint64_t>(trigger_max_ - trigger_min_ + 1);
  for (int b = 0; b < batch; ++b) {
    const int j = split == Split::train ? trigger_min_ + static_cast<int>(rng.below(span)) : eval_trigger_;
    const auto offset = static_cast<std::size_t>(b);
    sample_one(j, rng, out.inputs + offset * rows, out.targets + offset * rows,
               out.roles + offset * static_cast<std::size_t>(seq_len_));
    out.trigger_positions[b] = j;
  }
}

// One sequence: x and y are [seq_len, dim], roles [seq_len].
void TriggerConditionalTask::sample_one(int trigger, Rng& rng, float* x, float* y, TokenRole* roles) const {
  const int d = dim_;
  std::fill(x, x + static_cast<std::size_t>(seq_len_) * d, 0.0f);
  x[0] = 1.0f;
  roles[0] = TokenRole::bos;
  for (int i = 1; i < seq_len_; ++i) {
    float* row = x + static_cast<std::size_t>(i) * d;
    const bool is_trigger = i == trigger;
    row[is_trigger ? 1 : d - 1] = 1.0f;
    for (int c = 2; c <= d - 2; ++c) row[c] = rng.uniform(-1.0f, 1.0f);
    roles[i] = is_trigger ? TokenRole::trigger : TokenRole::other;
  }

  if (residual_target_) {
    std::copy(x, x + static_cast<std::size_t>(seq_len_) * d, y);
  } else {
    std::fill(y, y + static_cast<std::size_t>(seq_len_) * d, 0.0f);
  }
  // Mean of rows 1..trigger, accumulated in double so the target does not depend on summation order.
  float* target = y + static_cast<std::size_t>(trigger) * d;
  for (int c = 0; c < d; ++c) {
    double sum = 0.0;
    for (int k = 1; k <= trigger; ++k) sum += x[static_cast<std::size_t>(k) * d + c];
    target[c] += static_cast<float>(sum / trigger);
  }
}

}  // namespace sinklab
