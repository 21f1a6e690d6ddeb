#pragma once
// Rotary position embedding (RoPE, Su et al. 2021) on attention heads.
#include "core/graph.h"

namespace sinklab {

// x [B, H, T, D] (any strides, D even) -> contiguous [B, H, T, D]; the pair (2j, 2j+1) at position t
// is rotated by the angle t * base^(-2j/D).
Tensor rotary_embedding(Graph& g, const Tensor& x, float base = 10000.0f);

}  // namespace sinklab
