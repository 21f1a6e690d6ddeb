#pragma once
// Softpick: u_k = e^{s_k - m} - e^{-m} (m = max s, i.e. e^{s_k} - 1 scaled by e^{-m}),
// a_k = max(u_k, 0) / (sum_j |u_j| + eps). Keys with s_k <= 0 get exactly 0, so whole rows can be 0
// (every score <= 0); rows sum below 1 (RowMass::deficit). Kinks where a score crosses 0.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SoftpickNormalizer final : public RowNormalizer<SoftpickNormalizer> {
 public:
  explicit SoftpickNormalizer(double eps) : eps_(eps) {}
  std::string_view name() const override { return "softpick"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  // dscores_k += e^{s_k - m} ([u_k > 0] da_k - sign(u_k) <a, da>) / D, D = sum |u| + eps, and
  // -eps <a, da> / D at the argmax (eps scaled by e^{-m} depends on m)
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  bool near_kink(const double* scores, const RowSpec& row, const double* params, double margin) const override;
  RowMass row_mass_kind() const override { return RowMass::deficit; }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double eps_;
};

NormalizerRegistration softpick_normalizer_registration();

}  // namespace sinklab
