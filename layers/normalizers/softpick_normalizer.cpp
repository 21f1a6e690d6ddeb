#include "layers/normalizers/softpick_normalizer.h"

#include <algorithm>
#include <cmath>

namespace sinklab {
namespace {

template <class Real>
int argmax(const Real* scores, int n) {
  return static_cast<int>(std::max_element(scores, scores + n) - scores);
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void SoftpickNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const int n = row.visible;
  const Real m = scores[argmax(scores, n)];
  // Every u_k <= 0 when max s <= 0: the row is exactly 0 (and e^{-m} could overflow).
  if (!(m > Real(0))) {
    std::fill(probs, probs + n, Real(0));
    return;
  }
  const Real floor = row_exp(-m);
  Real sum_abs = 0;
  for (int k = 0; k < n; ++k) {
    const Real u = row_exp(scores[k] - m) - floor;
    probs[k] = std::max(u, Real(0));
    sum_abs += std::fabs(u);
  }
  const Real inv = Real(1) / (sum_abs + static_cast<Real>(eps_));
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

template <class Real>
void SoftpickNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                  const RowSpec& row, const Real*, Real*, Real*) const {
  const int n = row.visible;
  const int top = argmax(scores, n);
  const Real m = scores[top];
  // A zero row stays zero under any small change of its scores (all <= 0): no gradient.
  if (!(m > Real(0))) return;
  const Real floor = row_exp(-m);
  Real sum_abs = 0, dot = 0;
  for (int k = 0; k < n; ++k) {
    sum_abs += std::fabs(row_exp(scores[k] - m) - floor);
    dot += probs[k] * dprobs[k];
  }
  const Real inv = Real(1) / (sum_abs + static_cast<Real>(eps_));
  for (int k = 0; k < n; ++k) {
    const Real e = row_exp(scores[k] - m), u = e - floor;
    const Real own = u > Real(0) ? dprobs[k] : Real(0);
    const Real sign = u > Real(0) ? Real(1) : (u < Real(0) ? Real(-1) : Real(0));
    dscores[k] += e * (own - sign * dot) * inv;
  }
  dscores[top] -= static_cast<Real>(eps_) * dot * inv;
}

// A score crossing 0 (u = 0), or a near tie for the max (the eps term moves to the other key).
bool SoftpickNormalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  const int n = row.visible;
  const int top = argmax(scores, n);
  for (int k = 0; k < n; ++k) {
    if (std::fabs(scores[k]) < margin) return true;
    if (k != top && eps_ > 0 && scores[top] - scores[k] < margin) return true;
  }
  return false;
}

SINKLAB_ROW_MATH(SoftpickNormalizer)

NormalizerRegistration softpick_normalizer_registration() {
  return {"softpick", "max(e^s - 1, 0) / (sum |e^s - 1| + eps), computed shifted by the row max",
          {OptionSpec::number("eps", 1e-8, Bound::closed(0.0, 1.0),
                              "added to the denominator sum |u| (u = e^{s - max s} - e^{-max s})")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SoftpickNormalizer>(o.number("eps"));
          }};
}

}  // namespace sinklab
