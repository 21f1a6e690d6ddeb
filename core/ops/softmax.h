#pragma once
// Softmax over the last axis with autodiff: y = softmax(x / temperature), computed stably.
// -inf entries (masked scores) get probability 0; an all -inf row gives zeros (no NaN).
#include "core/graph.h"

namespace sinklab {

// x: [..., C] contiguous; temperature > 0 and finite.
Tensor softmax(Graph& g, const Tensor& x, float temperature = 1.0f);

}  // namespace sinklab
