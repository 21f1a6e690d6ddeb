#include <cmath>
#include <cstdint>

#include "core/cpu/isa_region.h"
#include "core/kernels/optimizer_updates.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/optimizer_updates.cpp calls the
// chosen copy.
SINKLAB_ISA_BEGIN
namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {

// p, g, m, v: [n]
void adam_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamStep& s) {
  const float b1 = s.beta1, b2 = s.beta2, eps = s.eps, l2 = s.l2, shrink = s.shrink, step = s.step_size;
  const float bc2_sqrt = s.bc2_sqrt;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + l2 * p[i];
    m[i] = b1 * m[i] + (1.0f - b1) * gi;
    v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
    p[i] = p[i] * shrink - step * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
  }
}

// p, g: [n]
void sgd_update(float* p, const float* g, int64_t n, float lr, float weight_decay) {
  for (int64_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + weight_decay * p[i]);
}

// p, g, buf: [n]
void sgd_momentum_update(float* p, const float* g, float* buf, int64_t n, float lr, float weight_decay, float momentum,
                         bool first) {
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + weight_decay * p[i];
    buf[i] = first ? gi : momentum * buf[i] + gi;
    p[i] -= lr * buf[i];
  }
}

// x: [n]
double sum_of_squares(const float* x, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  return s;
}

// x: [n]
void scale_in_place(float* x, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) x[i] *= scale;
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
