#include "layers/normalizers/ssmax_normalizer.h"

#include <algorithm>
#include <cmath>

namespace sinklab {
namespace {

template <class Real>
Real log_keys(const RowSpec& row) {
  return std::log(static_cast<Real>(row.query + 1));
}

}  // namespace

// softmax(lambda s), lambda = s_h ln(n_i), shifted by the row max of lambda s. scores, probs: [visible]
template <class Real>
void SsmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real*) const {
  const int n = row.visible;
  const Real lambda = params[0] * log_keys<Real>(row);
  Real m = lambda * scores[0];
  for (int k = 1; k < n; ++k) m = std::max(m, lambda * scores[k]);
  Real sum = 0;
  for (int k = 0; k < n; ++k) {
    probs[k] = row_exp(lambda * scores[k] - m);
    sum += probs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

template <class Real>
void SsmaxNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                               const RowSpec& row, const Real* params, Real* dparams, Real*) const {
  const int n = row.visible;
  const Real log_n = log_keys<Real>(row), lambda = params[0] * log_n;
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
  Real dlambda = 0;
  for (int k = 0; k < n; ++k) {
    const Real dz = probs[k] * (dprobs[k] - dot);
    dscores[k] += lambda * dz;
    dlambda += scores[k] * dz;
  }
  if (dparams) dparams[0] += log_n * dlambda;
}

SINKLAB_ROW_MATH(SsmaxNormalizer)

NormalizerRegistration ssmax_normalizer_registration() {
  return {"ssmax", "Scalable-Softmax: softmax(s_h ln(n_i) s), n_i = visible keys, s_h learned per head",
          {OptionSpec::number("init", 0.43, Bound::closed(-100.0, 100.0),
                              "initial s_h of every head (parameter <attn>.ssmax_scale; 0.43 is the public "
                              "implementations' default)")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SsmaxNormalizer>(o.number("init"));
          }};
}

}  // namespace sinklab
