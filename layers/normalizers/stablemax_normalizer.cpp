#include "layers/normalizers/stablemax_normalizer.h"

#include <cmath>

namespace sinklab {
namespace {

template <class Real>
Real stable_s(Real x) {
  return x >= Real(0) ? x + Real(1) : Real(1) / (Real(1) - x);
}

template <class Real>
Real stable_s_slope(Real x) {
  if (x >= Real(0)) return Real(1);
  const Real r = Real(1) / (Real(1) - x);
  return r * r;
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void StablemaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  Real sum = 0;
  for (int k = 0; k < row.visible; ++k) {
    probs[k] = stable_s(scores[k]);
    sum += probs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < row.visible; ++k) probs[k] *= inv;
}

template <class Real>
void StablemaxNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                   const RowSpec& row, const Real*, Real*, Real*) const {
  Real sum = 0, dot = 0;
  for (int k = 0; k < row.visible; ++k) {
    sum += stable_s(scores[k]);
    dot += probs[k] * dprobs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < row.visible; ++k) dscores[k] += stable_s_slope(scores[k]) * inv * (dprobs[k] - dot);
}

bool StablemaxNormalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  for (int k = 0; k < row.visible; ++k)
    if (std::fabs(scores[k]) < margin) return true;
  return false;
}

SINKLAB_ROW_MATH(StablemaxNormalizer)

NormalizerRegistration stablemax_normalizer_registration() {
  return {"stablemax", "S(s) / sum S(s), S(x) = x + 1 (x >= 0), 1 / (1 - x) (x < 0)", {},
          [](const PluginOptions&) -> std::unique_ptr<Normalizer> { return std::make_unique<StablemaxNormalizer>(); }};
}

}  // namespace sinklab
