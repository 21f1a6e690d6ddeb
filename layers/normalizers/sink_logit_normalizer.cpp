#include "layers/normalizers/sink_logit_normalizer.h"

#include "layers/normalizers/slot_softmax.h"

namespace sinklab {

// The slot: logit S_h = params[0], weight 1 (layers/normalizers/slot_softmax.h). scores, probs: [visible]
template <class Real>
void SinkLogitNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params,
                                  Real*) const {
  slot_softmax_forward(scores, probs, row.visible, params[0], Real(1));
}

template <class Real>
void SinkLogitNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                   const RowSpec& row, const Real* params, Real* dparams, Real*) const {
  const Real dot = slot_softmax_backward(probs, dprobs, dscores, row.visible);
  if (dparams) dparams[0] -= slot_softmax_share(scores, row.visible, params[0], Real(1)) * dot;
}

float SinkLogitNormalizer::virtual_mass(const float* scores, const float*, const RowSpec& row,
                                        const float* head_params) const {
  return slot_softmax_share(scores, row.visible, head_params[0], 1.0f);
}

// scores, probs: [T, T]
void SinkLogitNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                        const float* head_params, float* scratch) const {
  if (!slot_softmax_forward_block(scores, probs, seq_len, head_params[0], 1.0f))
    Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// scores, probs, dprobs, dscores: [T, T]
void SinkLogitNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs,
                                         float* dscores, int seq_len, int head, const float* head_params,
                                         float* dhead_params, float* scratch) const {
  if (!slot_softmax_backward_block(scores, probs, dprobs, dscores, seq_len, head_params[0], 1.0f, dhead_params))
    Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SinkLogitNormalizer)

NormalizerRegistration sink_logit_normalizer_registration() {
  return {"sink_logit", "softmax with a learned per-head sink logit S_h in the denominator (gpt-oss)",
          {OptionSpec::number("init_logit", 0.0, Bound::closed(-30.0, 30.0),
                              "initial S_h of every head (parameter <attn>.sink_logit)")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SinkLogitNormalizer>(o.number("init_logit"));
          }};
}

}  // namespace sinklab
