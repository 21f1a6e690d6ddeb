#include "train/sgd.h"

#include "core/kernels/optimizer_updates.h"

namespace sinklab {

// p, g, buf: [n]
void Sgd::step(ParameterStore& params, float lr) {
  float* p = params.values().data();
  const float* g = params.grads().data();
  const size_t n = params.size();
  if (momentum_ == 0.0f) {
    kernels::sgd_update(p, g, static_cast<int64_t>(n), lr, weight_decay_);
  } else {
    kernels::sgd_momentum_update(p, g, params.moment(0).data(), static_cast<int64_t>(n), lr, weight_decay_, momentum_,
                                 steps_ == 0);
  }
  ++steps_;
}

}  // namespace sinklab
