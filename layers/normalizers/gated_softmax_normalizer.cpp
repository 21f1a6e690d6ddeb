#include "layers/normalizers/gated_softmax_normalizer.h"

#include <stdexcept>

namespace sinklab {

GatedSoftmaxNormalizer::GatedSoftmaxNormalizer(OutputGate gate) : gate_(gate), softmax_(1.0) {
  if (gate == OutputGate::none) throw std::invalid_argument("gated_softmax: the gate must be per_head or elementwise");
}

// scores, probs: [visible]
template <class Real>
void GatedSoftmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params,
                                     Real* scratch) const {
  softmax_.forward<Real>(scores, probs, row, params, scratch);
}

template <class Real>
void GatedSoftmaxNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                      const RowSpec& row, const Real* params, Real* dparams, Real* scratch) const {
  softmax_.backward<Real>(scores, probs, dprobs, dscores, row, params, dparams, scratch);
}

// scores, probs: [T, T]
void GatedSoftmaxNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                           const float* head_params, float* scratch) const {
  softmax_.forward_block(scores, probs, seq_len, head, head_params, scratch);
}

void GatedSoftmaxNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs,
                                            float* dscores, int seq_len, int head, const float* head_params,
                                            float* dhead_params, float* scratch) const {
  softmax_.backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(GatedSoftmaxNormalizer)

NormalizerRegistration gated_softmax_normalizer_registration() {
  return {"gated_softmax",
          "softmax rows; each head's output is multiplied by sigmoid(x W_g^T) before W_O (weight <attn>.gate.weight)",
          {OptionSpec::choice("gate", {"per_head", "elementwise"}, "per_head",
                              "per_head: one gate per head and query (W_g [heads, d_model]); elementwise: one per "
                              "channel (W_g [heads * head_dim, d_model])")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<GatedSoftmaxNormalizer>(o.choice_index("gate") == 0 ? OutputGate::per_head
                                                                                         : OutputGate::elementwise);
          }};
}

}  // namespace sinklab
