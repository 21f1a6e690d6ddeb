#pragma once
// softmax(s / T) over the visible keys, computed stably (the row max is subtracted).
#include "layers/normalizers/normalizer_registration.h"

namespace sinklab {

class SoftmaxNormalizer final : public Normalizer {
 public:
  explicit SoftmaxNormalizer(float temperature = 1.0f);
  std::string_view name() const override { return "softmax"; }
  void forward_row(const float* scores, float* probs, const RowSpec& row, const float* head_params,
                   float* scratch) const override;
  void backward_row(const float* scores, const float* probs, const float* dprobs, float* dscores, const RowSpec& row,
                    const float* head_params, float* dhead_params, float* scratch) const override;
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  float inv_temperature_;
};

NormalizerRegistration softmax_normalizer_registration();

}  // namespace sinklab
