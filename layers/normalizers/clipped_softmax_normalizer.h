#pragma once
// Clipped softmax (Bondarenko et al.): a = min(1, max(0, (zeta - gamma) softmax(s) + gamma)). With
// gamma < 0, small weights are clipped to exactly 0; with zeta > 1, a dominant weight to exactly 1
// (then a row may sum above 1). RowMass::deficit: 1 - sum a may be negative.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class ClippedSoftmaxNormalizer final : public RowNormalizer<ClippedSoftmaxNormalizer> {
 public:
  ClippedSoftmaxNormalizer(double gamma, double zeta) : gamma_(gamma), zeta_(zeta) {}
  std::string_view name() const override { return "clipped_softmax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  // g = (zeta - gamma) [0 < pre < 1] da; dscores += p (g - <p, g>), p = softmax(s) (in scratch)
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  int scratch_per_row(int row_length) const override { return row_length; }
  RowMass row_mass_kind() const override { return RowMass::deficit; }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double gamma_, zeta_;
};

NormalizerRegistration clipped_softmax_normalizer_registration();

}  // namespace sinklab
