#include "train/adam.h"

#include <cmath>

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
  const float l2 = decoupled_ ? 0.0f : weight_decay_;
  const float shrink = decoupled_ ? 1.0f - lr * weight_decay_ : 1.0f;
  const float b1 = beta1_, b2 = beta2_, eps = eps_;
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float gi = g[i] + l2 * p[i];
    m[i] = b1 * m[i] + (1.0f - b1) * gi;
    v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
    p[i] = p[i] * shrink - step_size * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
  }
}

}  // namespace sinklab
