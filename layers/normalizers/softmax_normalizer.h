#pragma once
// softmax(s / T) over the visible keys, computed stably (the row max is subtracted).
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SoftmaxNormalizer final : public RowNormalizer<SoftmaxNormalizer> {
 public:
  explicit SoftmaxNormalizer(double temperature = 1.0);
  std::string_view name() const override { return "softmax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return RowMass::simplex; }
  std::optional<TiledForm> tiled_form() const override {
    return TiledForm::softmax(static_cast<float>(inv_temperature_));
  }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double inv_temperature_;
};

NormalizerRegistration softmax_normalizer_registration();

}  // namespace sinklab
