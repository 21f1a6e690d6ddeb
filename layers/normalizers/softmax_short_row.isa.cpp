#include <algorithm>
#include <limits>

#include "core/cpu/isa_region.h"
#include "core/kernels/fast_exp.h"
#include "layers/normalizers/softmax_short_row.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); layers/normalizers/softmax_short_row.cpp
// calls the chosen copy.
SINKLAB_ISA_BEGIN
namespace sinklab::SINKLAB_ISA_NAMESPACE {

constexpr int kShortRow = kSoftmaxShortRow;

// A row of at most kShortRow keys as fixed-width loops over padded lanes, so the compiler keeps the
// row in one or two vector registers instead of running scalar tails (most attention rows here have
// 1..16 visible keys). The row is copied into a padded buffer first: no loop reads or writes past n,
// so the loops vectorize at every level without masked loads (padding: -inf, whose exp is 0).
// scores, probs: [n], n <= kShortRow
void softmax_short_row(const float* scores, float* probs, int n, float inv_t) {
  alignas(64) float x[kShortRow];
  for (int k = 0; k < kShortRow; ++k) x[k] = -std::numeric_limits<float>::infinity();
  std::copy_n(scores, n, x);
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int k = 0; k < kShortRow; ++k) m = std::max(m, x[k]);
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int k = 0; k < kShortRow; ++k) {
    x[k] = kernels::fast_exp((x[k] - m) * inv_t);
    sum += x[k];
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int k = 0; k < kShortRow; ++k) x[k] *= inv;
  std::copy_n(x, n, probs);
}

}  // namespace sinklab::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
