#pragma once
// Scalable-Softmax (SSMax): a = softmax(s_h ln(n_i) s), n_i = i + 1 the keys row i sees (from
// RowSpec::query) and s_h a learned per-head scale, the attention parameter `<attn>.ssmax_scale`
// [heads, 1]. Row 0 (ln 1 = 0) is uniform over its one key.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SsmaxNormalizer final : public RowNormalizer<SsmaxNormalizer> {
 public:
  explicit SsmaxNormalizer(double init) : init_(init) {}
  std::string_view name() const override { return "ssmax"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  // dz = a (dprobs - <a, dprobs>); dscores += s_h ln(n) dz; ds_h += ln(n) <s, dz>
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  int params_per_head() const override { return 1; }
  std::string_view param_name() const override { return "ssmax_scale"; }
  float initial_param(int) const override { return static_cast<float>(init_); }
  RowMass row_mass_kind() const override { return RowMass::simplex; }
  std::optional<TiledForm> tiled_form() const override { return TiledForm::softmax_scaled_by_log_keys(); }
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double init_;
};

NormalizerRegistration ssmax_normalizer_registration();

}  // namespace sinklab
