#pragma once
// Causal attention for short rows in one op, with autodiff: per (head, sample) block, while the block
// is in L1, S = scale q k^T (causal part), P = normalizer.forward_block(S), O = P V; backward per
// block dP = dO V^T, dS = normalizer.backward_block, dV = P^T dO, dQ = scale dS K, dK = scale dS^T Q.
// It replaces the materialized path's three batched oneDNN calls over [H, B, T, T] (and their six
// backward products) by hand-written kernels on each block (layers/fused_block_attention_kernels.h),
// for any normalizer of the zoo: the rows go through its forward_block / backward_block unchanged.
// S and P [H, B, T, T] stay in the graph arena (backward_block reads them); nothing else of size T x T.
// The result equals scores -> attention_weights -> weights x v up to float rounding
// (tests/layers/fused_block_attention_test.cpp).
#include "core/graph.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

// q, k, v: contiguous [H, B, T, D], T <= fused::kMaxSeqLen (64) -> o [H, B, T, D]. Row i of each block
// attends to keys 0..i. head_params: [H, P] contiguous for a normalizer with P = params_per_head() > 0
// learned scalars per head (with their gradient), undefined otherwise. The normalizer must outlive
// the step (backward reads it).
Tensor fused_block_attention(Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, float logit_scale,
                             const Normalizer& normalizer, const Tensor& head_params = Tensor());

}  // namespace sinklab
