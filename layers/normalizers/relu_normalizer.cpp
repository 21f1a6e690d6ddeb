#include "layers/normalizers/relu_normalizer.h"

#include <algorithm>

namespace sinklab {

float ReluNormalizer::divisor_for(const RowSpec& row) const {
  switch (divisor_) {
    case RowDivisor::visible_non_bos: return static_cast<float>(std::max(row.query, 1));
    case RowDivisor::visible: return static_cast<float>(row.visible);
    case RowDivisor::seq_len: return static_cast<float>(row.seq_len);
    case RowDivisor::none: return 1.0f;
  }
  return 1.0f;
}

// scores, probs: [visible]
void ReluNormalizer::forward_row(const float* scores, float* probs, const RowSpec& row, const float*, float*) const {
  const float inv = 1.0f / divisor_for(row);
  for (int k = 0; k < row.visible; ++k) probs[k] = std::max(scores[k], 0.0f) * inv;
}

// dscores += [s > 0] dprobs / c
void ReluNormalizer::backward_row(const float* scores, const float*, const float* dprobs, float* dscores,
                                  const RowSpec& row, const float*, float*, float*) const {
  const float inv = 1.0f / divisor_for(row);
  for (int k = 0; k < row.visible; ++k)
    if (scores[k] > 0.0f) dscores[k] += dprobs[k] * inv;
}

// The whole causal block in fixed-length rows (no per-row call; the compiler vectorizes a row of T
// keys with the mask as a select). scores, probs: [T, T]
void ReluNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head, const float*,
                                   float*) const {
  const int T = seq_len;
  for (int i = 0; i < T; ++i) {
    const float inv = 1.0f / divisor_for(RowSpec{i, i + 1, T, head, nullptr});
    const float* s = scores + i * T;
    float* p = probs + i * T;
#pragma omp simd
    for (int k = 0; k < T; ++k) p[k] = k <= i ? std::max(s[k], 0.0f) * inv : 0.0f;
  }
}

// dscores += [s > 0] dprobs / c on the visible keys (masked keys get + 0). scores, dprobs, dscores: [T, T]
void ReluNormalizer::backward_block(const float* scores, const float*, const float* dprobs, float* dscores,
                                    int seq_len, int head, const float*, float*, float*) const {
  const int T = seq_len;
  for (int i = 0; i < T; ++i) {
    const float inv = 1.0f / divisor_for(RowSpec{i, i + 1, T, head, nullptr});
    const float* s = scores + i * T;
    const float* dp = dprobs + i * T;
    float* ds = dscores + i * T;
#pragma omp simd
    for (int k = 0; k < T; ++k) ds[k] += k <= i && s[k] > 0.0f ? dp[k] * inv : 0.0f;
  }
}

}  // namespace sinklab
