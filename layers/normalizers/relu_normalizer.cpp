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

}  // namespace sinklab
