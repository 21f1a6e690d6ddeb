#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/cpu/isa_region.h"
#include "core/kernels/elementwise_layout.h"
#include "core/kernels/optimizer_updates.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/optimizer_updates.cpp calls the
// chosen copy.
SINKLAB_ISA_BEGIN
namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {

// The loops below touch every parameter once and are bound by memory, one core's bandwidth at one
// thread: they spread over the threads (each element on its own, so any split gives the same bits)
// once they are large enough to pay for waking them.

// p, g, m, v: [n]
void adam_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamStep& s) {
  const float b1 = s.beta1, b2 = s.beta2, eps = s.eps, l2 = s.l2, shrink = s.shrink, step = s.step_size;
  const float bc2_sqrt = s.bc2_sqrt;
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + l2 * p[i];
    m[i] = b1 * m[i] + (1.0f - b1) * gi;
    v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
    p[i] = p[i] * shrink - step * m[i] / (std::sqrt(v[i]) / bc2_sqrt + eps);
  }
}

// p, g: [n]
void sgd_update(float* p, const float* g, int64_t n, float lr, float weight_decay) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + weight_decay * p[i]);
}

// p, g, buf: [n]
void sgd_momentum_update(float* p, const float* g, float* buf, int64_t n, float lr, float weight_decay, float momentum,
                         bool first) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] + weight_decay * p[i];
    buf[i] = first ? gi : momentum * buf[i] + gi;
    p[i] -= lr * buf[i];
  }
}

namespace {

constexpr int64_t kSumLanes = 8;  // one AVX-512 register of doubles, two AVX2 ones
constexpr int kSumParts = 64;

// x: [n]. Lane j sums the squares of x[j], x[j + 8], ...; the lanes are then added in order.
double lane_sum_of_squares(const float* x, int64_t n) {
  double lane[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes)
    for (int64_t j = 0; j < kSumLanes; ++j) lane[j] += static_cast<double>(x[i + j]) * x[i + j];
  for (int64_t j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(x[i]) * x[i];
  double s = 0.0;
  for (int64_t j = 0; j < kSumLanes; ++j) s += lane[j];
  return s;
}

}  // namespace

// x: [n] cut into kSumParts runs of whole 8-float groups, the cut decided by n alone; each run is
// summed in lanes (above) and the runs are added in order. One dependent chain of double adds would
// be latency-bound (four cycles an element); the lanes make it memory-bound, and the parts let
// threads share it while the result stays the same for every thread count.
double sum_of_squares(const float* x, int64_t n) {
  const int64_t groups = (n + kSumLanes - 1) / kSumLanes;
  const int64_t per_part = (groups + kSumParts - 1) / kSumParts * kSumLanes;
  double part[kSumParts] = {};
#pragma omp parallel for schedule(static) if (n >= kParallelMinElements)
  for (int k = 0; k < kSumParts; ++k) {
    const int64_t begin = std::min<int64_t>(n, k * per_part);
    const int64_t end = std::min<int64_t>(n, begin + per_part);
    part[k] = lane_sum_of_squares(x + begin, end - begin);
  }
  double s = 0.0;
  for (int k = 0; k < kSumParts; ++k) s += part[k];
  return s;
}

// x: [n]
void scale_in_place(float* x, int64_t n, float scale) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) x[i] *= scale;
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
