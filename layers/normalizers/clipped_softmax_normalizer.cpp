#include "layers/normalizers/clipped_softmax_normalizer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sinklab {
namespace {

// p = softmax(s), shifted by the row max. scores, p: [n]
template <class Real>
void softmax_into(const Real* scores, Real* p, int n) {
  const Real m = *std::max_element(scores, scores + n);
  Real sum = 0;
  for (int k = 0; k < n; ++k) {
    p[k] = row_exp(scores[k] - m);
    sum += p[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) p[k] *= inv;
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void ClippedSoftmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*,
                                       Real*) const {
  const Real stretch = static_cast<Real>(zeta_ - gamma_), gamma = static_cast<Real>(gamma_);
  softmax_into(scores, probs, row.visible);
  for (int k = 0; k < row.visible; ++k) probs[k] = std::clamp(stretch * probs[k] + gamma, Real(0), Real(1));
}

// scores, probs, dprobs, dscores, scratch: [visible]
template <class Real>
void ClippedSoftmaxNormalizer::backward(const Real* scores, const Real*, const Real* dprobs, Real* dscores,
                                        const RowSpec& row, const Real*, Real*, Real* scratch) const {
  const int n = row.visible;
  const Real stretch = static_cast<Real>(zeta_ - gamma_), gamma = static_cast<Real>(gamma_);
  Real* p = scratch;
  softmax_into(scores, p, n);
  auto passed = [&](int k) {  // dL/dpre_k: zero where the clip is active
    const Real pre = stretch * p[k] + gamma;
    return pre > Real(0) && pre < Real(1) ? stretch * dprobs[k] : Real(0);
  };
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += p[k] * passed(k);
  for (int k = 0; k < n; ++k) dscores[k] += p[k] * (passed(k) - dot);
}

// A pre-clip value within reach of 0 or 1: pre_k moves by at most (zeta - gamma) p_k per unit of
// score change (|dp_k / ds_j| <= p_k), so the distance to the boundary is measured in those units.
bool ClippedSoftmaxNormalizer::near_kink(const double* scores, const RowSpec& row, const double*,
                                         double margin) const {
  const int n = row.visible;
  std::vector<double> p(static_cast<size_t>(n));
  softmax_into(scores, p.data(), n);
  const double stretch = zeta_ - gamma_;
  for (int k = 0; k < n; ++k) {
    const double pre = stretch * p[static_cast<size_t>(k)] + gamma_, reach = margin * stretch * p[static_cast<size_t>(k)];
    if (std::fabs(pre) < reach || std::fabs(pre - 1.0) < reach) return true;
  }
  return false;
}

SINKLAB_ROW_MATH(ClippedSoftmaxNormalizer)

NormalizerRegistration clipped_softmax_normalizer_registration() {
  return {"clipped_softmax", "clip((zeta - gamma) softmax(s) + gamma, 0, 1) (Bondarenko et al.)",
          {OptionSpec::number("gamma", -0.03, Bound::closed(-1.0, 0.0), "stretch below 0: weights under "
                                                                          "-gamma / (zeta - gamma) become exactly 0"),
           OptionSpec::number("zeta", 1.0, Bound::closed(1.0, 2.0), "stretch above 1: weights over "
                                                                      "(1 - gamma) / (zeta - gamma) become exactly 1")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<ClippedSoftmaxNormalizer>(o.number("gamma"), o.number("zeta"));
          }};
}

}  // namespace sinklab
