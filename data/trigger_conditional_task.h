#pragma once
// The trigger-conditional task of Ran-Milo 2026 (docs/reproducing-sinks.md; the task section of docs/tasks.md).
//
// A sequence of seq_len vectors of width d; position 0 is BOS = e_0. Exactly one position j >= 1 is the
// trigger: coordinate 1 set, content U(-1, 1) in coordinates 2..d-2. Every other position i >= 1 is an
// ordinary token: content U(-1, 1) in 2..d-2 and coordinate d-1 set.
// Targets (m_j = mean of x_1..x_j, the full vectors, flags included, BOS excluded):
//   mean:     y_j = m_j, every other row 0 (BOS and the positions after the trigger too);
//   residual: y_i = x_i for every i, plus m_j added at row j.
//
// Draw order (fixed, so a seed gives the same bits everywhere, whatever the chunking), per sample in
// turn from the task's rng:
//   1. Split::train only: j = trigger_min + rng.below(trigger_max - trigger_min + 1);
//      Split::eval draws nothing and uses eval_trigger;
//   2. the sample's own stream seed: rng.next();
// then the content comes from that sample's stream Rng(seed): uniform(-1, 1) for positions
// 1..seq_len-1 in order, and within a position for coordinates 2..d-2 in order. Per-sample streams
// let eight samples draw at once (core/rng_lanes.h), so generation stays a small part of the step.
// sample() writes straight into the caller's buffers and allocates nothing.
// Roles: BOS is the sink key, the trigger row the active row, every other row a no-op row.
//
// bos: false (the no-BOS control) makes position 0 an ordinary token: its content is drawn too (position
// 0 first, then 1..seq_len-1, same order otherwise), coordinate 0 is never set, and the mean runs over
// x_0..x_j. Position 0 stays flagged as the sink-candidate key, so the statistics measure whether weight
// still parks on the first token; row 0 sees only itself (its weight is forced) and, like a BOS row,
// carries no row flag.
#include "data/task_registration.h"

namespace sinklab {

enum class TargetKind : uint8_t { automatic, mean, residual };  // `automatic` is spelled "auto" in YAML

// The task's own options (config keys task.dim, task.trigger_min, ...), as plain values.
struct TriggerTaskSettings {
  int dim = 16;
  int seq_len = 16;  // BOS included
  int trigger_min = 2;
  int trigger_max = -1;  // -1 = seq_len - 1
  int eval_trigger = 7;
  TargetKind target = TargetKind::automatic;
  bool bos = true;  // false: position 0 is an ordinary token (no content-free key)
};

class TriggerConditionalTask final : public Task {
 public:
  // Throws TaskError naming the keys when the settings are inconsistent (dim < 4, seq_len < 3, trigger
  // bounds outside 1..seq_len-1, ...). `residual_model` resolves target: auto.
  TriggerConditionalTask(const TriggerTaskSettings& settings, bool residual_model);

  std::string_view name() const override { return "trigger_conditional"; }
  TaskShape shape() const override;
  int fixed_eval_row() const override { return eval_trigger_; }
  void sample(int batch, Rng& rng, Split split, BatchView out) const override;

  int trigger_min() const { return trigger_min_; }
  int trigger_max() const { return trigger_max_; }
  int eval_trigger() const { return eval_trigger_; }
  bool residual_target() const { return residual_target_; }
  bool has_bos() const { return bos_; }

 private:
  void finish_sample(int trigger, float* x, float* y, uint8_t* roles) const;

  int dim_;
  int seq_len_;
  int trigger_min_;
  int trigger_max_;
  int eval_trigger_;
  bool residual_target_;
  bool bos_;
};

TaskRegistration trigger_conditional_task_registration();

}  // namespace sinklab
