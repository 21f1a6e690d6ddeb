#pragma once
// Matrix products with autodiff, routed through the cached oneDNN kernel (core/kernels/matmul.h).
#include "core/graph.h"

namespace sinklab {

// a [..., M, K] x b [..., K, N] -> [..., M, N] (contiguous). Ranks 2..4. b's leading (batch) dims
// must equal a's or be absent/1 (broadcast, e.g. a weight shared over the batch). Transposes are views
// (Tensor::transpose), never copies. alpha scales the product (e.g. an attention logit scale).
Tensor matmul(Graph& g, const Tensor& a, const Tensor& b, float alpha = 1.0f);

}  // namespace sinklab
