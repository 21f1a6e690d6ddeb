#include "layers/normalizers/softmax_normalizer.h"

#include "core/kernels/fast_exp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sinklab {

SoftmaxNormalizer::SoftmaxNormalizer(float temperature) : inv_temperature_(1.0f / temperature) {
  if (!(temperature > 0.0f)) throw std::invalid_argument("softmax: temperature must be > 0");
}

namespace {

constexpr int kShortRow = 16;  // one AVX-512 register of floats

// A row of at most kShortRow keys as fixed-width loops over padded lanes: the compiler keeps the
// whole row in one vector register instead of running scalar tails (most attention rows here have
// 1..16 visible keys). Lanes k >= n are masked: never read, never written, weight 0.
// scores, probs: [n], n <= kShortRow
void softmax_short_row(const float* scores, float* probs, int n, float inv_t) {
  float x[kShortRow];
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int k = 0; k < kShortRow; ++k) {
    x[k] = k < n ? scores[k] : -std::numeric_limits<float>::infinity();
    m = std::max(m, x[k]);
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int k = 0; k < kShortRow; ++k) {
    x[k] = k < n ? kernels::fast_exp((x[k] - m) * inv_t) : 0.0f;
    sum += x[k];
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int k = 0; k < kShortRow; ++k)
    if (k < n) probs[k] = x[k] * inv;
}

}  // namespace

// scores, probs: [visible]
void SoftmaxNormalizer::forward_row(const float* scores, float* probs, const RowSpec& row, const float*, float*) const {
  const int n = row.visible;
  if (n <= kShortRow) {
    softmax_short_row(scores, probs, n, inv_temperature_);
    return;
  }
  float m = scores[0];
  for (int k = 1; k < n; ++k) m = std::max(m, scores[k]);
  float sum = 0.0f;
  const float inv_t = inv_temperature_;
#pragma omp simd reduction(+ : sum)
  for (int k = 0; k < n; ++k) {
    probs[k] = kernels::fast_exp((scores[k] - m) * inv_t);
    sum += probs[k];
  }
  const float inv = 1.0f / sum;
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

// dscores += (p * (dp - <p, dp>)) / T
void SoftmaxNormalizer::backward_row(const float*, const float* probs, const float* dprobs, float* dscores,
                                     const RowSpec& row, const float*, float*, float*) const {
  const int n = row.visible;
  float dot = 0.0f;
  for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
  for (int k = 0; k < n; ++k) dscores[k] += inv_temperature_ * probs[k] * (dprobs[k] - dot);
}

}  // namespace sinklab
