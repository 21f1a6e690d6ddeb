#pragma once
// Which of a training step's periodic duties fall on it: a metrics.jsonl line, an evaluation on the
// fixed set, a checkpoint by step count. One function decides all three, so each key means exactly
// what docs/config.md says whatever the others are (an evaluation used to run only on a logged step:
// log_every 100 with eval_every 250 evaluated at 500 and 1000 only).
#include <cstdint>

#include "config_loading/run_config.h"

namespace sinklab {

// A coarse log_every (>= this) logs its first kEarlyLogWindows * log_every steps ten times as densely,
// every log_every / 10 steps: sinks form early (a 1x1 paper run stops after ~700-900 steps), and at
// log_every 100 they would get ~9 points of the BOS-vs-step curve. A smaller log_every is dense already.
inline constexpr int kDenseEarlyLogFrom = 50;
inline constexpr int kEarlyLogWindows = 5;

struct StepCadence {
  bool evaluate = false;    // step % eval_every == 0 (eval_every > 0)
  // step % log_spacing_at(step) == 0, or an evaluation runs (its numbers go on a line), or the run's last
  // step (max_steps - 1), so its curves end where it does. A run that meets a stop rule logs that step too
  // (train/trainer.cpp: the rule is known only once the step ran).
  bool log = false;
  bool checkpoint = false;  // step + 1 steps are done and that is a multiple of checkpoint_every (> 0)
};

// Steps between metrics lines around `step`: log_every / 10 in the early window of a coarse
// log_every (see kDenseEarlyLogFrom), log_every otherwise.
int64_t log_spacing_at(const TrainConfig& train, int64_t step);

// `step` counts from 0; the duties run after that step's update.
StepCadence cadence_at(const TrainConfig& train, int64_t step);

}  // namespace sinklab
