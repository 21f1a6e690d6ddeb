#pragma once
// ReLU attention without normalization: a_ik = ReLU(s_ik) / c_i (trigger-sinks.md section 3).
// c_i by divisor: visible_non_bos = max(i, 1) (the paper's: non-BOS keys row i sees), visible = i + 1
// (Guo et al.), seq_len = T (Wortsman et al.), none = 1.
#include "configs/run_config.h"
#include "layers/normalizers/normalizer.h"

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
  float divisor_for(const RowSpec& row) const;

 private:
  RowDivisor divisor_;
};

}  // namespace sinklab
