#pragma once
// softmax_n ("softmax + n", softmax1 for n = 1): a_k = e^{s_k - m} / (n e^{-m} + sum_j e^{s_j - m}),
// m = max(0, max s). A virtual slot of logit 0 and weight n takes the rest of the row's mass.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SoftmaxNNormalizer final : public RowNormalizer<SoftmaxNNormalizer> {
 public:
  explicit SoftmaxNNormalizer(double n) : n_(n) {}
  std::string_view name() const override { return "softmax_n"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return RowMass::virtual_slot; }
  // Softmax with a slot of logit ln n (weight n at logit 0), value 0.
  std::optional<TiledForm> tiled_form() const override {
    return TiledForm::softmax(1.0f, static_cast<float>(std::log(n_)));
  }
  // n e^{-m} / Z
  float virtual_mass(const float* scores, const float* probs, const RowSpec& row,
                     const float* head_params) const override;
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double n_;
};

NormalizerRegistration softmax_n_normalizer_registration();

}  // namespace sinklab
