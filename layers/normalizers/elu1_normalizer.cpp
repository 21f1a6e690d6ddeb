#include "layers/normalizers/elu1_normalizer.h"

#include <algorithm>

namespace sinklab {
namespace {

// elu(x) + 1: x + 1 above 0, e^x at and below 0 (no overflow: the exponent is never positive).
template <class Real>
Real elu1(Real x) {
  return x > Real(0) ? x + Real(1) : row_exp(x);
}

// (elu(x) + 1)' = 1 above 0, e^x at and below 0.
template <class Real>
Real elu1_derivative(Real x) {
  return x > Real(0) ? Real(1) : row_exp(x);
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void Elu1Normalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const int n = row.visible;
  if (divisor_ == RowDivisor::row_sum) {
    // With every score <= 0 the row is e^s / sum e^s: shifted by the row's maximum it is computed
    // like softmax, so a row of very negative scores stays a distribution instead of underflowing to 0.
    const Real top = n > 0 ? *std::max_element(scores, scores + n) : Real(0);
    if (top <= Real(0)) {
      row_sum_forward(scores, probs, n, [top](Real s) { return row_exp(s - top); });
      return;
    }
    row_sum_forward(scores, probs, n, [](Real s) { return elu1(s); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < n; ++k) probs[k] = elu1(scores[k]) * inv;
}

// dscores += f'(s) dprobs / c. row_sum: f'(s_k) / sum f (dprobs_k - <a, dprobs>), where f'(s_k) / sum f =
// a_k f'(s_k) / f(s_k) = a_k (s_k <= 0) or a_k / (s_k + 1) (s_k > 0): from the weights, so it does not
// underflow either.
template <class Real>
void Elu1Normalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                              const RowSpec& row, const Real*, Real*, Real*) const {
  const int n = row.visible;
  if (divisor_ == RowDivisor::row_sum) {
    Real dot = 0;
    for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
    for (int k = 0; k < n; ++k) {
      const Real slope = scores[k] > Real(0) ? probs[k] / (scores[k] + Real(1)) : probs[k];
      dscores[k] += slope * (dprobs[k] - dot);
    }
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < n; ++k) dscores[k] += elu1_derivative(scores[k]) * dprobs[k] * inv;
}

SINKLAB_ROW_MATH(Elu1Normalizer)

NormalizerRegistration elu1_normalizer_registration() {
  return {"elu1",
          "(elu(s) + 1) / c_i: elu+1 attention (s + 1 above 0, e^s below), c_i chosen by `divisor` as for relu",
          {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<Elu1Normalizer>(row_divisor_of(o));
          }};
}

}  // namespace sinklab
