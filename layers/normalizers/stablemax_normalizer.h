#pragma once
// Stablemax: a_k = S(s_k) / sum_j S(s_j) with S(x) = x + 1 for x >= 0, 1 / (1 - x) for x < 0: a
// softmax whose exp is replaced by a map growing only linearly (no shift needed; S > 0 everywhere).
// S is C1 at 0 but its second derivative jumps there (0 vs 2), so rows with a score near 0 are
// near_kink for central differences.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class StablemaxNormalizer final : public RowNormalizer<StablemaxNormalizer> {
 public:
  std::string_view name() const override { return "stablemax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  // dscores += S'(s) / sum S (dprobs - <a, dprobs>)
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  RowMass row_mass_kind() const override { return RowMass::simplex; }
};

NormalizerRegistration stablemax_normalizer_registration();

}  // namespace sinklab
