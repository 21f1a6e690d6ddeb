#include "layers/normalizers/softplus_normalizer.h"

#include <algorithm>
#include <cmath>

namespace sinklab {
namespace {

// ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|): e^-|x| <= 1, so no overflow for any x and full precision
// for large |x| (log1p).
template <class Real>
Real softplus(Real x) {
  return std::max(x, Real(0)) + std::log1p(row_exp(-std::fabs(x)));
}

// softplus'(x) = sigma(x), from e = e^-|x| <= 1.
template <class Real>
Real sigmoid(Real x) {
  const Real e = row_exp(-std::fabs(x));
  return x >= Real(0) ? Real(1) / (Real(1) + e) : e / (Real(1) + e);
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void SoftplusNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_forward(scores, probs, row.visible, [](Real s) { return softplus(s); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) probs[k] = softplus(scores[k]) * inv;
}

// dscores += sigma(s) dprobs / c (row_sum: sigma(s) (dprobs - <a, dprobs>) / sum softplus(s))
template <class Real>
void SoftplusNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                  const RowSpec& row, const Real*, Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_backward(
        scores, probs, dprobs, dscores, row.visible, [](Real s) { return softplus(s); },
        [](Real s) { return sigmoid(s); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) dscores[k] += sigmoid(scores[k]) * dprobs[k] * inv;
}

SINKLAB_ROW_MATH(SoftplusNormalizer)

NormalizerRegistration softplus_normalizer_registration() {
  return {"softplus", "ln(1 + e^s) / c_i: smooth relu attention, c_i chosen by `divisor` as for relu",
          {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SoftplusNormalizer>(row_divisor_of(o));
          }};
}

}  // namespace sinklab
