#pragma once
// elu+1 attention (Gu et al. 2025, "When Attention Sink Emerges in Language Models"): a_ik =
// (elu(s_ik) + 1) / c_i, elu(x) = x for x > 0 and e^x - 1 otherwise, so the map is x + 1 above 0 and
// e^x below: positive everywhere, linear growth instead of softmax's exponential one. c_i is the relu
// family's row divisor (layers/normalizers/row_divisor.h): `none` is Gu's unnormalized elu+1, `row_sum`
// their normalized one (rows on the simplex; a row whose scores are all <= 0 is then exactly softmax).
// Rows have free mass except with row_sum (RowMass follows the divisor). Written row by row: the
// default block functions loop over the rows; the positional divisors also tile (TiledForm::Map::elu1).
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class Elu1Normalizer final : public RowNormalizer<Elu1Normalizer> {
 public:
  explicit Elu1Normalizer(RowDivisor divisor) : divisor_(divisor) {}
  std::string_view name() const override { return "elu1"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return row_mass_of(divisor_); }
  std::optional<TiledForm> tiled_form() const override {
    const auto c = tiled_divisor(divisor_);
    return c ? std::optional(TiledForm::elementwise(TiledForm::Map::elu1, *c)) : std::nullopt;
  }

 private:
  RowDivisor divisor_;
};

NormalizerRegistration elu1_normalizer_registration();

}  // namespace sinklab
