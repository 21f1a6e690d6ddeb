#pragma once
// Softplus attention: a_ik = softplus(s_ik) / c_i, softplus(x) = ln(1 + e^x), with the relu family's
// row divisor c_i (layers/normalizers/row_divisor.h). The smooth relative of relu: softplus(x) -> max(x, 0)
// away from 0, but it is differentiable everywhere (softplus' = sigma) and positive everywhere, so a
// row can approach zero mass only by pushing every logit far below 0; no key's gradient dies (relu's
// s < 0 keys get none). Rows have free mass except with divisor row_sum (RowMass follows the divisor).
// Written row by row only: the default block functions loop over the rows and zero the masked keys.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SoftplusNormalizer final : public RowNormalizer<SoftplusNormalizer> {
 public:
  explicit SoftplusNormalizer(RowDivisor divisor) : divisor_(divisor) {}
  std::string_view name() const override { return "softplus"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return row_mass_of(divisor_); }

 private:
  RowDivisor divisor_;
};

NormalizerRegistration softplus_normalizer_registration();

}  // namespace sinklab
