#include "layers/normalizers/relu2_normalizer.h"

#include <algorithm>

namespace sinklab {

// scores, probs: [visible]
void Relu2Normalizer::forward_row(const float* scores, float* probs, const RowSpec& row, const float*, float*) const {
  const float inv = 1.0f / row_divisor(divisor_, row);
  for (int k = 0; k < row.visible; ++k) {
    const float r = std::max(scores[k], 0.0f);
    probs[k] = r * r * inv;
  }
}

// dscores += 2 max(s, 0) dprobs / c
void Relu2Normalizer::backward_row(const float* scores, const float*, const float* dprobs, float* dscores,
                                   const RowSpec& row, const float*, float*, float*) const {
  const float two_inv = 2.0f / row_divisor(divisor_, row);
  for (int k = 0; k < row.visible; ++k)
    if (scores[k] > 0.0f) dscores[k] += scores[k] * dprobs[k] * two_inv;
}

NormalizerRegistration relu2_normalizer_registration() {
  return {"relu2", "max(s, 0)^2 / c_i, c_i chosen by `divisor` as for relu", {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<Relu2Normalizer>(row_divisor_of(o));
          }};
}

}  // namespace sinklab
