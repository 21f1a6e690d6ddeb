#include "train/step_cadence.h"

namespace sinklab {

int64_t log_spacing_at(const TrainConfig& train, int64_t step) {
  const int64_t every = train.log_every;
  const bool early = every >= kDenseEarlyLogFrom && step < kEarlyLogWindows * every;
  return early ? every / 10 : every;
}

StepCadence cadence_at(const TrainConfig& train, int64_t step) {
  StepCadence c;
  c.evaluate = train.eval_every > 0 && step % train.eval_every == 0;
  c.log = step % log_spacing_at(train, step) == 0 || c.evaluate || step == train.max_steps - 1;
  c.checkpoint = train.checkpoint_every > 0 && (step + 1) % train.checkpoint_every == 0;
  return c;
}

}  // namespace sinklab
