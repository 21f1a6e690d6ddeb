#include "layers/normalizers/relu2_normalizer.h"

#include <algorithm>

namespace sinklab {

// scores, probs: [visible]
template <class Real>
void Relu2Normalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) {
    const Real r = std::max(scores[k], Real(0));
    probs[k] = r * r * inv;
  }
}

// dscores += 2 max(s, 0) dprobs / c
template <class Real>
void Relu2Normalizer::backward(const Real* scores, const Real*, const Real* dprobs, Real* dscores, const RowSpec& row,
                               const Real*, Real*, Real*) const {
  const Real two_inv = Real(2) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k)
    if (scores[k] > Real(0)) dscores[k] += scores[k] * dprobs[k] * two_inv;
}

SINKLAB_ROW_MATH(Relu2Normalizer)

NormalizerRegistration relu2_normalizer_registration() {
  return {"relu2", "max(s, 0)^2 / c_i, c_i chosen by `divisor` as for relu", {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<Relu2Normalizer>(row_divisor_of(o));
          }};
}

}  // namespace sinklab
