#include "train/adam.h"

#include <cmath>

#include "core/kernels/optimizer_updates.h"

namespace sinklab {

Adam::Adam(float beta1, float beta2, float eps, float weight_decay, bool decoupled)
    : beta1_(beta1), beta2_(beta2), eps_(eps), weight_decay_(weight_decay), decoupled_(decoupled) {}

// p, g, m, v: [n] flat parameter blocks
void Adam::step(ParameterStore& params, float lr) {
  ++steps_;
  float* p = params.values().data();
  const float* g = params.grads().data();
  float* m = params.moment(0).data();
  float* v = params.moment(1).data();
  const size_t n = params.size();
  const double t = static_cast<double>(steps_);
  const float bc1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1_), t));
  const float bc2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(beta2_), t)));
  const float step_size = lr / bc1;
  const kernels::AdamStep s{beta1_, beta2_, eps_,
                            decoupled_ ? 0.0f : weight_decay_,             // Adam: L2 on the gradient
                            decoupled_ ? 1.0f - lr * weight_decay_ : 1.0f,  // AdamW: decay the weights
                            step_size, bc2_sqrt};
  kernels::adam_update(p, g, m, v, static_cast<int64_t>(n), s);
}

}  // namespace sinklab
