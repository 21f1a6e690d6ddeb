#include "train/step_cadence.h"

namespace sinklab {

StepCadence cadence_at(const TrainConfig& train, int64_t step) {
  StepCadence c;
  c.evaluate = train.eval_every > 0 && step % train.eval_every == 0;
  c.log = step % train.log_every == 0 || c.evaluate;
  c.checkpoint = train.checkpoint_every > 0 && (step + 1) % train.checkpoint_every == 0;
  return c;
}

}  // namespace sinklab
