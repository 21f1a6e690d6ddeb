#pragma once
// The small products of fused block attention (layers/fused_block_attention.h) on one causal
// (head, sample) block of T <= kMaxSeqLen rows, in L1. Matrices are row-major: q, k, v and their
// gradients [T, D]; scores, weights and their gradients [T, T], row i = query i, column j = key j.
// The weight arguments must be exactly 0 above the diagonal (a normalizer's forward_block writes its
// masked keys as 0; the op zeroes dS before backward_block adds into it), so the products can run
// over whole groups of rows without a mask.
#include <cstdint>

namespace sinklab::fused {

inline constexpr int kMaxSeqLen = 64;  // four 16-lane registers of keys per score row

// Floats of scratch causal_row_dots needs: b transposed, [D, kMaxSeqLen].
inline int64_t dots_scratch_floats(int head_dim) { return int64_t{head_dim} * kMaxSeqLen; }

// out [T, T]: out[i, j] = mult * a_i . b_j for j <= i, 0 for j > i. a, b: [T, D]. bt_scratch as
// dots_scratch_floats says. Vectorized over keys (b transposed in registers), eight query rows at a time.
void causal_row_dots(const float* a, const float* b, int T, int D, float mult, float* out, float* bt_scratch);

// out [T, D] (+)= mult * w x: out_i (+)= mult * sum_{j <= i} w[i, j] x_j, "=" when `overwrite` (out's old
// values are not read then). w [T, T] (0 above the diagonal), x [T, D]. Vectorized over D, four rows at
// a time.
void accumulate_weights_times_rows(const float* w, const float* x, int T, int D, float mult, float* out,
                                   bool overwrite = false);

// out [T, D] (+)= mult * w^T x: out_j (+)= mult * sum_{i >= j} w[i, j] x_i, "=" when `overwrite`. w [T, T]
// (0 above the diagonal), x [T, D]. Vectorized over D, four rows of out at a time.
void accumulate_weights_transposed_times_rows(const float* w, const float* x, int T, int D, float mult, float* out,
                                              bool overwrite = false);

}  // namespace sinklab::fused
