#pragma once
// ReLU attention without normalization: a_ik = ReLU(s_ik) / c_i, with the relu family's row divisor
// c_i (layers/normalizers/row_divisor.h; the paper's is max(i, 1)).
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"

namespace sinklab {

class ReluNormalizer final : public Normalizer {
 public:
  explicit ReluNormalizer(RowDivisor divisor = RowDivisor::visible_non_bos) : divisor_(divisor) {}
  std::string_view name() const override { return "relu"; }
  void forward_row(const float* scores, float* probs, const RowSpec& row, const float* head_params,
                   float* scratch) const override;
  void backward_row(const float* scores, const float* probs, const float* dprobs, float* dscores, const RowSpec& row,
                    const float* head_params, float* dhead_params, float* scratch) const override;
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;
  float divisor_for(const RowSpec& row) const { return row_divisor(divisor_, row); }

 private:
  RowDivisor divisor_;
};

NormalizerRegistration relu_normalizer_registration();

}  // namespace sinklab
