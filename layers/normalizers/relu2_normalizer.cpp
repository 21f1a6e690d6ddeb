#include "layers/normalizers/relu2_normalizer.h"

#include <algorithm>
#include <cmath>

namespace sinklab {

// scores, probs: [visible]
template <class Real>
void Relu2Normalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_forward(scores, probs, row.visible, [](Real s) { return s > Real(0) ? s * s : Real(0); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) {
    const Real r = std::max(scores[k], Real(0));
    probs[k] = r * r * inv;
  }
}

// dscores += 2 max(s, 0) dprobs / c (row_sum: 2 max(s, 0) (dprobs - <a, dprobs>) / sum max(s, 0)^2)
template <class Real>
void Relu2Normalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                               const RowSpec& row, const Real*, Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_backward(
        scores, probs, dprobs, dscores, row.visible, [](Real s) { return s > Real(0) ? s * s : Real(0); },
        [](Real s) { return s > Real(0) ? Real(2) * s : Real(0); });
    return;
  }
  const Real two_inv = Real(2) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k)
    if (scores[k] > Real(0)) dscores[k] += scores[k] * dprobs[k] * two_inv;
}

bool Relu2Normalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  if (divisor_ != RowDivisor::row_sum) return false;
  for (int k = 0; k < row.visible; ++k)
    if (std::fabs(scores[k]) < margin) return true;
  return false;
}

SINKLAB_ROW_MATH(Relu2Normalizer)

NormalizerRegistration relu2_normalizer_registration() {
  return {"relu2", "max(s, 0)^2 / c_i, c_i chosen by `divisor` as for relu", {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<Relu2Normalizer>(row_divisor_of(o));
          }};
}

}  // namespace sinklab
