#include "layers/normalizers/softmax_normalizer.h"

#include "core/kernels/fast_exp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sinklab {

SoftmaxNormalizer::SoftmaxNormalizer(float temperature) : inv_temperature_(1.0f / temperature) {
  if (!(temperature > 0.0f)) throw std::invalid_argument("softmax: temperature must be > 0");
}

// scores, probs: [visible]
void SoftmaxNormalizer::forward_row(const float* scores, float* probs, const RowSpec& row, const float*, float*) const {
  const int n = row.visible;
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
