#include "train/sgd.h"

namespace sinklab {

// p, g, buf: [n]
void Sgd::step(ParameterStore& params, float lr) {
  float* p = params.values().data();
  const float* g = params.grads().data();
  const size_t n = params.size();
  if (momentum_ == 0.0f) {
    for (size_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + weight_decay_ * p[i]);
  } else {
    float* buf = params.moment(0).data();
    const bool first = steps_ == 0;
    for (size_t i = 0; i < n; ++i) {
      const float gi = g[i] + weight_decay_ * p[i];
      buf[i] = first ? gi : momentum_ * buf[i] + gi;
      p[i] -= lr * buf[i];
    }
  }
  ++steps_;
}

}  // namespace sinklab
