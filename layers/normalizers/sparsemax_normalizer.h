#pragma once
// sparsemax (Martins & Astudillo 2016): the Euclidean projection of the row of logits onto the
// simplex, a_k = max(s_k - tau, 0) with tau chosen so that the row sums to 1. Exact zeros outside
// the support; tau comes from the sorted row (scratch_per_row keys of scratch for the sorted copy).
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SparsemaxNormalizer final : public RowNormalizer<SparsemaxNormalizer> {
 public:
  std::string_view name() const override { return "sparsemax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  // A key within margin of tau is about to enter or leave the support.
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  int scratch_per_row(int row_length) const override { return row_length; }
  RowMass row_mass_kind() const override { return RowMass::simplex; }
};

NormalizerRegistration sparsemax_normalizer_registration();

}  // namespace sinklab
