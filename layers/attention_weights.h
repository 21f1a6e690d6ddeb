#pragma once
// The fused "causal mask + row normalizer" op of attention, with autodiff.
#include "core/graph.h"
#include "layers/attention_ablation.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

// scores [H, B, T, T] contiguous (head-major, as multi_head_attention keeps its heads) -> weights
// [H, B, T, T]: row i of each (head, batch) block is normalized
// over keys 0..i; keys k > i are exactly 0. `head_params` is [H, P] for a normalizer with P learned
// scalars per head (undefined when P = 0). The normalizer must outlive the step (backward reads it).
Tensor attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer, const Tensor& head_params);

// Weights of rows with a leading slot that is not a key (the key-bias token, model.attention.key_bias).
struct SlotAttentionWeights {
  Tensor weights;                      // [H, B, T, T] on the real keys, as attention_weights returns them
  const float* slot_weights = nullptr;  // [H, B, T] the slot's weight per row (graph arena, no gradient)
};

// As attention_weights, with one extra logit per row, slot_logits [H, B, T] (contiguous): row i is
// normalized as [slot_i, s_i0 .. s_ii] with RowSpec{query = i, visible = i + 2}. The slot's value is
// 0, so its weight reaches no output; its logit still gets the gradient of the other weights (the
// row is normalized together). An undefined slot_logits is plain attention_weights.
SlotAttentionWeights attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer,
                                       const Tensor& head_params, const Tensor& slot_logits);

// Evaluation only: the weights above (slot_logits may be undefined) with the BOS key ablated in the
// heads of `layer` that `ablation` names, as layers/attention_ablation.h defines the modes; the other
// heads' weights are those of attention_weights, bit for bit. Nothing is recorded for backward: a graph
// that would track a gradient through it is refused with std::logic_error.
SlotAttentionWeights ablated_attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer,
                                               const Tensor& head_params, const Tensor& slot_logits,
                                               const AttentionAblation& ablation, int layer);

}  // namespace sinklab
