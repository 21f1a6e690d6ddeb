#pragma once
// ReLU attention: a_ik = ReLU(s_ik) / c_i, with the relu family's row divisor c_i
// (layers/normalizers/row_divisor.h; the paper's is max(i, 1); row_sum puts rows on the simplex).
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class ReluNormalizer final : public RowNormalizer<ReluNormalizer> {
 public:
  explicit ReluNormalizer(RowDivisor divisor = RowDivisor::visible_non_bos) : divisor_(divisor) {}
  std::string_view name() const override { return "relu"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  RowMass row_mass_kind() const override { return row_mass_of(divisor_); }
  std::optional<TiledForm> tiled_form() const override {
    const auto c = tiled_divisor(divisor_);
    return c ? std::optional(TiledForm::elementwise(TiledForm::Map::relu, *c)) : std::nullopt;
  }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;
  float divisor_for(const RowSpec& row) const { return row_divisor<float>(divisor_, row); }

 private:
  RowDivisor divisor_;
};

NormalizerRegistration relu_normalizer_registration();

}  // namespace sinklab
