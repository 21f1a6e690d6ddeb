#pragma once
// Kernels of the tiled causal attention (layers/tiled_attention.h) for one (head, sample) block.
// Query rows go in tiles of `tile_rows`, keys in tiles of `tile_cols` <= kTileCols columns; a key
// tile holds K (and V) transposed, [D, kTileCols], so that a score row is sum_d q[i, d] * Kt[d, :],
// one vector FMA per d over the tile's columns. Tiles above the causal diagonal are skipped.
// Softmax rows run online (FlashAttention-2): forward keeps a running max and sum per row and saves
// only the output and each row's log-sum-exp; backward recomputes the score tiles and uses
// dS = P * (dP - rowsum(dO * O)). Elementwise rows (the relu family) need neither.
#include <cmath>
#include <cstdint>

#include "layers/normalizers/tiled_form.h"

namespace sinklab::tiled {

inline constexpr int kTileCols = 64;  // keys per tile: four AVX-512 registers, eight AVX ones

struct BlockShape {
  int seq_len;    // T
  int head_dim;   // D
  int tile_rows;  // query rows per tile, >= 1
  int tile_cols;  // keys per tile, 1 .. kTileCols
};

struct RowMath {
  TiledForm form;  // softmax_head_slot: slot_logit already set to the block's head parameter
  float logit_scale;  // the attention's scale: x = logit_scale * q . k
  float head_scale = 1.0f;  // softmax_log_keys: the block's head parameter s_h

  // The logit multiplier of row i beyond logit_multiplier: s_h ln(i + 1) for log-keys rows, else 1.
  float row_factor(int i) const {
    return form.rows == TiledForm::Rows::softmax_log_keys ? head_scale * std::log(static_cast<float>(i + 1)) : 1.0f;
  }
};

// Floats of per-thread scratch the kernels below need.
int64_t scratch_floats(const BlockShape& shape);

// One query tile [i0, i0 + tile_rows) of one block. q, k, v, o: [T, D]; lse: [T] (softmax rows: each
// row's log-sum-exp of m x, written; elementwise rows: untouched).
void forward_query_tile(const float* q, const float* k, const float* v, float* o, float* lse, int i0,
                        const BlockShape& shape, const RowMath& math, float* scratch);

// The gradients of one block, accumulated: dq, dk, dv [T, D] (each may be null: not wanted) and, for
// rows with a learned head parameter, dhead [1] (d/d slot_logit or d/d head_scale; may be null). q, k, v, o, dout: [T,
// D]; lse: [T] as forward wrote it.
void backward_block(const float* q, const float* k, const float* v, const float* o, const float* dout,
                    const float* lse, float* dq, float* dk, float* dv, float* dhead, const BlockShape& shape,
                    const RowMath& math, float* scratch);

}  // namespace sinklab::tiled
