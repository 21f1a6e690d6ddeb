#pragma once
// Sigmoid attention: a_ik = sigma(s_ik + b) / c_i, with an optional bias b = -ln L (L = the batch's
// sequence length, RowSpec::seq_len) and the relu family's row divisor c_i
// (layers/normalizers/row_divisor.h): none gives unnormalized sigmoid attention, row_sum puts rows
// on the simplex.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

enum class SigmoidBias : uint8_t { zero, neg_log_seq_len };

class SigmoidNormalizer final : public RowNormalizer<SigmoidNormalizer> {
 public:
  SigmoidNormalizer(SigmoidBias bias, RowDivisor divisor) : bias_(bias), divisor_(divisor) {}
  std::string_view name() const override { return "sigmoid"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  RowMass row_mass_kind() const override { return row_mass_of(divisor_); }
  std::optional<TiledForm> tiled_form() const override {
    const auto c = tiled_divisor(divisor_);
    const auto b = bias_ == SigmoidBias::neg_log_seq_len ? TiledForm::Bias::neg_log_seq_len : TiledForm::Bias::zero;
    return c ? std::optional(TiledForm::elementwise(TiledForm::Map::sigmoid, *c, b)) : std::nullopt;
  }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  template <class Real>
  Real bias_for(int seq_len) const;
  SigmoidBias bias_;
  RowDivisor divisor_;
};

NormalizerRegistration sigmoid_normalizer_registration();

}  // namespace sinklab
