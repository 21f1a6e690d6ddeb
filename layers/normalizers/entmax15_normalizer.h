#pragma once
// 1.5-entmax (Peters, Niculae & Martins 2019): a_k = max(z_k - tau, 0)^2 with z = (s - max s) / 2 and
// tau chosen so that the row sums to 1, found exactly from the sorted row (scratch_per_row keys of
// scratch for the sorted copy). Sparse like sparsemax, but smooth at the support boundary.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class Entmax15Normalizer final : public RowNormalizer<Entmax15Normalizer> {
 public:
  std::string_view name() const override { return "entmax15"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  // A key within margin (in units of s) of the support boundary.
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  int scratch_per_row(int row_length) const override { return row_length; }
  RowMass row_mass_kind() const override { return RowMass::simplex; }
};

NormalizerRegistration entmax15_normalizer_registration();

}  // namespace sinklab
