#pragma once
// Causal attention for long rows without T x T arrays, with autodiff: o = normalize(scale q k^T) v
// computed per (head, sample) block in tiles of query rows x keys (layers/tiled_attention_kernels.h),
// tiles above the diagonal skipped. What it keeps for backward is the output and one float per row
// (softmax's log-sum-exp), so a step's memory grows linearly in T. Rows are those of a normalizer
// with a TiledForm (layers/normalizers/tiled_form.h); the result equals attention_weights followed
// by weights x v up to float rounding (tests/layers/tiled_attention_test.cpp).
#include "core/graph.h"
#include "layers/normalizers/tiled_form.h"

namespace sinklab {

struct AttentionTiles {
  int query_rows = 64;  // >= 1
  int key_cols = 64;    // 1 .. tiled::kTileCols
};

// q, k, v: contiguous [H, B, T, D] (head-major, as multi_head_attention keeps them) -> o [H, B, T, D].
// Row i of each block attends to keys 0..i with weights form(logit_scale * q_i . k_j). head_params
// [H, 1]: each head's slot logit for TiledForm::Rows::softmax_head_slot (sink_logit) or scale for
// softmax_log_keys (ssmax), with its gradient; undefined otherwise.
Tensor tiled_attention(Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, float logit_scale,
                       const TiledForm& form, const Tensor& head_params = Tensor(), AttentionTiles tiles = {});

}  // namespace sinklab
