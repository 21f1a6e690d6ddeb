#pragma once
// Squared ReLU attention: a_ik = max(s_ik, 0)^2 / c_i, with the relu family's row divisor c_i
// (layers/normalizers/row_divisor.h). Written row by row only: the default block functions loop over
// the rows and zero the masked keys.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_divisor.h"

namespace sinklab {

class Relu2Normalizer final : public Normalizer {
 public:
  explicit Relu2Normalizer(RowDivisor divisor) : divisor_(divisor) {}
  std::string_view name() const override { return "relu2"; }
  void forward_row(const float* scores, float* probs, const RowSpec& row, const float* head_params,
                   float* scratch) const override;
  void backward_row(const float* scores, const float* probs, const float* dprobs, float* dscores, const RowSpec& row,
                    const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  RowDivisor divisor_;
};

NormalizerRegistration relu2_normalizer_registration();

}  // namespace sinklab
