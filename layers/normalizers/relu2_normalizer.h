#pragma once
// Squared ReLU attention: a_ik = max(s_ik, 0)^2 / c_i, with the relu family's row divisor c_i
// (layers/normalizers/row_divisor.h). Written row by row only: the default block functions loop over
// the rows and zero the masked keys.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class Relu2Normalizer final : public RowNormalizer<Relu2Normalizer> {
 public:
  explicit Relu2Normalizer(RowDivisor divisor) : divisor_(divisor) {}
  std::string_view name() const override { return "relu2"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return row_mass_of(divisor_); }
  std::optional<TiledForm> tiled_form() const override {
    const auto c = tiled_divisor(divisor_);
    return c ? std::optional(TiledForm::elementwise(TiledForm::Map::relu2, *c)) : std::nullopt;
  }
  // Only row_sum has a kink: a row's last positive score crossing 0 takes the row from 1 to 0.
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;

 private:
  RowDivisor divisor_;
};

NormalizerRegistration relu2_normalizer_registration();

}  // namespace sinklab
