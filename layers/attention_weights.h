#pragma once
// The fused "causal mask + row normalizer" op of attention, with autodiff.
#include "core/graph.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

// scores [H, B, T, T] contiguous (head-major, as multi_head_attention keeps its heads) -> weights
// [H, B, T, T]: row i of each (head, batch) block is normalized
// over keys 0..i; keys k > i are exactly 0. `head_params` is [H, P] for a normalizer with P learned
// scalars per head (undefined when P = 0). The normalizer must outlive the step (backward reads it).
Tensor attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer, const Tensor& head_params);

}  // namespace sinklab
