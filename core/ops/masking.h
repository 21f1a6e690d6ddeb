#pragma once
// Causal masking with autodiff: query row i sees keys k <= i.
#include <limits>

#include "core/graph.h"

namespace sinklab {

// scores: [..., T, T] contiguous (rank 2..4). Entries with k > i become `fill` (-inf by default, which
// softmax turns into probability 0); their gradient is zero.
Tensor causal_mask(Graph& g, const Tensor& scores, float fill = -std::numeric_limits<float>::infinity());

}  // namespace sinklab
