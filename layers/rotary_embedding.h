#pragma once
// Rotary position embedding (RoPE, Su et al. 2021) on attention heads.
#include "core/graph.h"

namespace sinklab {

// x [G0, G1, T, D] (any strides, D even; attention passes head-major [H, B, T, D]) -> contiguous, same
// shape; the pair (2j, 2j+1) at position t (dim 2) is rotated by the angle t * base^(-2j/D).
Tensor rotary_embedding(Graph& g, const Tensor& x, float base = 10000.0f);

}  // namespace sinklab
