#pragma once
// Optimizers update the flat parameter block in one fused loop per step (ParameterStore keeps
// values, gradients and moments contiguous).
#include <memory>

#include "config_loading/run_config.h"
#include "core/parameter_store.h"

namespace sinklab {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update with learning rate `lr` from the gradients currently in the store.
  virtual void step(ParameterStore& params, float lr) = 0;
  // Number of updates done so far (Adam's bias correction needs it; checkpoints save it).
  int64_t steps() const { return steps_; }
  void set_steps(int64_t s) { steps_ = s; }

 protected:
  int64_t steps_ = 0;
};

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config);

// L2 norm of all gradients (in double, fixed order).
double gradient_norm(const ParameterStore& params);
// Scales the gradients so their norm is at most max_norm; returns the norm before clipping.
double clip_gradient_norm(ParameterStore& params, double max_norm);

}  // namespace sinklab
