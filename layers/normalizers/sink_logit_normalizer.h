#pragma once
// A learned sink logit per head (as in gpt-oss): a_k = e^{s_k - m} / (e^{S_h - m} + sum_j e^{s_j - m}),
// m = max(S_h, max s). S_h is the attention parameter `<attn>.sink_logit` [heads, 1]; the virtual
// slot it opens takes the rest of the row's mass.
#include "layers/normalizers/normalizer_registration.h"
#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

class SinkLogitNormalizer final : public RowNormalizer<SinkLogitNormalizer> {
 public:
  explicit SinkLogitNormalizer(double init) : init_(init) {}
  std::string_view name() const override { return "sink_logit"; }
  template <class Real>
  void forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real* scratch) const;
  // dscores += a (dprobs - <a, dprobs>); dS_h += -v <a, dprobs>, v = the slot's share
  template <class Real>
  void backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                const Real* params, Real* dparams, Real* scratch) const;
  int params_per_head() const override { return 1; }
  // Softmax with a slot of logit S_h (the head's parameter), value 0.
  std::optional<TiledForm> tiled_form() const override { return TiledForm::softmax_with_head_slot(); }
  std::string_view param_name() const override { return "sink_logit"; }
  float initial_param(int) const override { return static_cast<float>(init_); }
  RowMass row_mass_kind() const override { return RowMass::virtual_slot; }
  float virtual_mass(const float* scores, const float* probs, const RowSpec& row,
                     const float* head_params) const override;
  void forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                     float* scratch) const override;
  void backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int seq_len,
                      int head, const float* head_params, float* dhead_params, float* scratch) const override;

 private:
  double init_;
};

NormalizerRegistration sink_logit_normalizer_registration();

}  // namespace sinklab
