#include "probes/sensitivity_rows.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "probes/gradient_sensitivity.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab::probes {

SensitivityRows::SensitivityRows(const RowKind& rows) : name_(rows.config.name) {
  // The facts its registration declares (an unknown name: create() below says which names exist).
  const NormalizerRegistration* registration = normalizer_registry().find(rows.config.name);
  const NormalizerRowFacts facts = registration ? registration->row_facts : NormalizerRowFacts{};
  if (facts.softmax_of_scaled_logits) return;  // the spec's tempered softmax (any temperature option: T replaces it)
  normalizer_ = normalizer_registry().create(rows.config);
  switch (facts.lipschitz) {
    case LogitLipschitz::softmax: lipschitz_ = Lipschitz::softmax; break;
    case LogitLipschitz::log_keys_softmax: lipschitz_ = Lipschitz::log_keys_softmax; break;
    case LogitLipschitz::projection: lipschitz_ = Lipschitz::projection; break;
    case LogitLipschitz::unknown:
      lipschitz_ = normalizer_->row_mass_kind() == RowMass::simplex ? Lipschitz::simplex : Lipschitz::none;
      break;
  }
}

SensitivityRows::~SensitivityRows() = default;

void SensitivityRows::apply(const double* l, const double* v, double eps, int n, int seq_len, double T,
                            const double* params, double* out, double* scratch) const {
  if (!normalizer_) {
    tempered_softmax(l, v, eps, n, T, out);
    return;
  }
  if (normalizer_->params_per_head() > 0 && !params)
    throw std::logic_error("probe P5: " + name_ + " rows need the head's parameters");
  for (int k = 0; k < n; ++k) scratch[k] = (l[k] + (v ? eps * v[k] : 0.0)) / T;
  normalizer_->forward_row_f64(scratch, out, RowSpec{n - 1, n, seq_len, 0}, params, scratch + n);
}

double SensitivityRows::bound(int n, double T, double eps, const double* params) const {
  const double simplex = std::sqrt(2.0) / eps;
  switch (lipschitz_) {
    case Lipschitz::softmax: return std::min(1.0 / (2.0 * T), simplex);
    case Lipschitz::log_keys_softmax:
      return std::min(std::fabs(params[0]) * std::log(static_cast<double>(n)) / (2.0 * T), simplex);
    case Lipschitz::projection: return std::min(1.0 / T, simplex);
    case Lipschitz::simplex: return simplex;
    case Lipschitz::none: return std::numeric_limits<double>::infinity();
  }
  return std::numeric_limits<double>::infinity();
}

std::string SensitivityRows::bound_text() const {
  switch (lipschitz_) {
    case Lipschitz::softmax: return "P5 g <= 1/(2T) and g <= sqrt(2)/eps";
    case Lipschitz::log_keys_softmax:
      return "P5 g <= abs(s_h) ln(n)/(2T) and g <= sqrt(2)/eps (" + name_ + ")";  // no pipes: a table cell
    case Lipschitz::projection: return "P5 g <= 1/T and g <= sqrt(2)/eps (" + name_ + ")";
    case Lipschitz::simplex: return "P5 g <= sqrt(2)/eps (" + name_ + ")";
    case Lipschitz::none: return "P5 bounds: none known for " + name_;
  }
  return "";
}

double row_sensitivity(const SensitivityRows& rows, const double* l, const double* v, const double* p0, int n,
                       int seq_len, double T, double eps, const double* params, double* p1, double* scratch) {
  rows.apply(l, v, eps, n, seq_len, T, params, p1, scratch);
  double sq = 0.0;
  for (int k = 0; k < n; ++k) sq += (p1[k] - p0[k]) * (p1[k] - p0[k]);
  return std::sqrt(sq) / eps;
}

}  // namespace sinklab::probes
