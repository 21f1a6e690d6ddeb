#include "layers/normalizers/softmax_n_normalizer.h"

#include "layers/normalizers/slot_softmax.h"

namespace sinklab {

// The slot: logit 0, weight n (layers/normalizers/slot_softmax.h). scores, probs: [visible]
template <class Real>
void SoftmaxNNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  slot_softmax_forward(scores, probs, row.visible, Real(0), static_cast<Real>(n_));
}

// dscores += a (dprobs - <a, dprobs>)
template <class Real>
void SoftmaxNNormalizer::backward(const Real*, const Real* probs, const Real* dprobs, Real* dscores,
                                  const RowSpec& row, const Real*, Real*, Real*) const {
  slot_softmax_backward(probs, dprobs, dscores, row.visible);
}

float SoftmaxNNormalizer::virtual_mass(const float* scores, const float*, const RowSpec& row, const float*) const {
  return slot_softmax_share(scores, row.visible, 0.0f, static_cast<float>(n_));
}

// scores, probs: [T, T]
void SoftmaxNNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                       const float* head_params, float* scratch) const {
  if (!slot_softmax_forward_block(scores, probs, seq_len, 0.0f, static_cast<float>(n_)))
    Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// scores, probs, dprobs, dscores: [T, T]
void SoftmaxNNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                        int seq_len, int head, const float* head_params, float* dhead_params,
                                        float* scratch) const {
  if (!slot_softmax_backward_block(scores, probs, dprobs, dscores, seq_len, 0.0f, static_cast<float>(n_), nullptr))
    Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SoftmaxNNormalizer)

NormalizerRegistration softmax_n_normalizer_registration() {
  // n e^{-m} must stay a finite float32 (m >= 0, so n itself must).
  return {"softmax_n", "e^s / (n + sum e^s): softmax with a virtual slot of weight n (softmax1 for n = 1)",
          {OptionSpec::number("n", 1.0, Bound::open(0.0, 1e30), "weight of the virtual slot (logit 0)")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SoftmaxNNormalizer>(o.number("n"));
          }};
}

}  // namespace sinklab
