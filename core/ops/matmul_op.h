#pragma once
// Matrix products with autodiff, routed through the cached oneDNN kernels: float32 (core/kernels/matmul.h),
// or bf16 inputs with float32 accumulation (core/kernels/matmul_bf16.h) while the graph's matmul precision
// is bf16. A node's backward products use the precision its forward ran in.
#include "core/graph.h"

namespace sinklab {

// a [..., M, K] x b [..., K, N] -> [..., M, N] (contiguous). Ranks 2..4. The leading (batch) dims
// of one operand may be absent/1 where the other's are not (broadcast): b shared over a's batch (a
// weight), or a shared over b's batch (one input projected by every head's weight: x [N, C] x
// w [H, C, D] -> [H, N, D]). Broadcasting both ways at once is rejected. Transposes are views
// (Tensor::transpose), never copies. alpha scales the product (e.g. an attention logit scale).
Tensor matmul(Graph& g, const Tensor& a, const Tensor& b, float alpha = 1.0f);

// sum over g of a[g] x b[g]: a [G, M, K], b [G, K, N] -> [M, N] (contiguous). Merges attention heads
// kept head-major ([H, N, D] per head) through the output projection without a layout copy.
Tensor matmul_sum_over_batch(Graph& g, const Tensor& a, const Tensor& b);

}  // namespace sinklab
