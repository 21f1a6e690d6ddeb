#include "layers/fused_block_attention_kernels.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); layers/fused_block_attention_kernels.cpp calls
// the chosen copy. GCC warns that passing a vector by value has another ABI at other levels; every
// function taking one is in this level's namespace, so no caller compiled elsewhere can disagree.
#pragma GCC diagnostic ignored "-Wpsabi"

SINKLAB_ISA_BEGIN
namespace sinklab::fused::SINKLAB_ISA_NAMESPACE {
namespace {

// One register of floats at this level (GCC vector extension): 16 under AVX-512, 8 under AVX, 4 under
// SSE. Every result is summed in the same order whatever the width.
constexpr int kLanes = SINKLAB_VECTOR_FLOATS;
using Vec = float __attribute__((vector_size(kLanes * sizeof(float))));
constexpr int kRows = 4;  // rows per group: four independent FMA chains
static_assert(kMaxSeqLen % kLanes == 0);

inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }
// *p = v when overwriting, *p += v otherwise.
inline void put(float* p, Vec v, bool overwrite) { store(p, overwrite ? v : load(p) + v); }

// Shuffle masks of one transpose stage (see transpose_square): lane c of the lower row takes
// (c & m) ? partner[c - m] : own[c], of the upper row (c & m) ? partner[c] : own[c + m]; kLanes + x
// names lane x of the second operand.
using Lanes = int __attribute__((vector_size(kLanes * sizeof(int))));
constexpr int stage_lane(int m, bool upper, int c) {
  return (c & m) ? (upper ? kLanes + c : kLanes + c - m) : (upper ? c + m : c);
}
template <int m, bool upper, int... c>
constexpr Lanes stage_mask(std::integer_sequence<int, c...>) {
  return Lanes{stage_lane(m, upper, c)...};
}

template <int m>
inline void transpose_stage(Vec (&r)[kLanes]) {
  constexpr Lanes lower = stage_mask<m, false>(std::make_integer_sequence<int, kLanes>{});
  constexpr Lanes upper = stage_mask<m, true>(std::make_integer_sequence<int, kLanes>{});
  for (int i = 0; i < kLanes; ++i) {
    if (i & m) continue;
    const Vec own = r[i], partner = r[i | m];
    r[i] = __builtin_shuffle(own, partner, lower);
    r[i | m] = __builtin_shuffle(own, partner, upper);
  }
}

// r[i][j] <- r[j][i] in registers: stage m exchanges bit m of the row index with bit m of the column
// index, so after m = 1, 2, 4, .. kLanes / 2 every bit pair is exchanged (at 16 lanes: 64 two-source
// shuffles instead of 256 scalar loads and stores).
template <int m = 1>
inline void transpose_square(Vec (&r)[kLanes]) {
  transpose_stage<m>(r);
  if constexpr (2 * m < kLanes) transpose_square<2 * m>(r);
}

// bt [D, kMaxSeqLen] = b^T for b [T, D], keys T .. (T rounded up to kLanes) zero.
void transpose_keys(const float* b, int T, int D, float* bt) {
  const int padded = (T + kLanes - 1) / kLanes * kLanes;
  if (D % kLanes != 0) {
    for (int d = 0; d < D; ++d) {
      float* row = bt + d * kMaxSeqLen;
      for (int j = 0; j < T; ++j) row[j] = b[j * D + d];
      std::fill(row + T, row + padded, 0.0f);
    }
    return;
  }
  for (int j0 = 0; j0 < padded; j0 += kLanes)
    for (int d0 = 0; d0 < D; d0 += kLanes) {
      Vec tile[kLanes];
      for (int r = 0; r < kLanes; ++r) tile[r] = j0 + r < T ? load(b + (j0 + r) * D + d0) : Vec{};
      transpose_square(tile);
      for (int r = 0; r < kLanes; ++r) store(bt + (d0 + r) * kMaxSeqLen + j0, tile[r]);
    }
}

// out row i, keys c0 .. c0 + kLanes (those < T): mult * acc on keys j <= i, 0 after the diagonal.
// (A select and one vector store per whole chunk measured slower: 150-159 against 131 ns per T 16
// block in bench/small_gemm_bench.)
inline void store_causal_chunk(Vec acc, int i, int c0, int T, float mult, float* out_row) {
  alignas(sizeof(Vec)) float lanes[kLanes];
  store(lanes, mult * acc);
  const int n = std::min(kLanes, T - c0);
  for (int l = 0; l < n; ++l) out_row[c0 + l] = c0 + l <= i ? lanes[l] : 0.0f;
}

}  // namespace

// Rows i0 .. i0 + R - 1 of out [T, T] from bt [D, kMaxSeqLen]: R independent FMA chains per key
// chunk. Each score is summed over d in the same order whatever R is.
template <int R>
inline void causal_row_group(const float* a, const float* bt, int i0, int T, int D, float mult, float* out) {
  const int chunks = (i0 + R - 1) / kLanes + 1;  // key chunks the group's last row reaches
  const float* a0 = a + i0 * D;
  for (int c = 0; c < chunks; ++c) {
    const float* bc = bt + c * kLanes;
    Vec s[R] = {};
    for (int d = 0; d < D; ++d) {
      const Vec bd = load(bc + d * kMaxSeqLen);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) s[r] += a0[r * D + d] * bd;
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) store_causal_chunk(s[r], i0 + r, c * kLanes, T, mult, out + (i0 + r) * T);
  }
  for (int r = 0; r < R; ++r)  // key chunks past the group's diagonal
    std::fill(out + (i0 + r) * T + std::min(T, chunks * kLanes), out + (i0 + r + 1) * T, 0.0f);
}

// bt [D, kMaxSeqLen] = b^T, keys >= T zero; out [T, T]. Groups of eight rows: with four, the four
// chains of dependent FMAs (one per row, over d) left half of the FMA throughput unused.
void causal_row_dots(const float* a, const float* b, int T, int D, float mult, float* out, float* bt) {
  transpose_keys(b, T, D, bt);
  int i0 = 0;
  for (; i0 + 8 <= T; i0 += 8) causal_row_group<8>(a, bt, i0, T, D, mult, out);
  for (; i0 + 4 <= T; i0 += 4) causal_row_group<4>(a, bt, i0, T, D, mult, out);
  for (; i0 < T; ++i0) causal_row_group<1>(a, bt, i0, T, D, mult, out);
}

// w [T, T], x [T, D], out [T, D]
void accumulate_weights_times_rows(const float* w, const float* x, int T, int D, float mult, float* out,
                                   bool overwrite) {
  for (int i0 = 0; i0 < T; i0 += kRows) {
    const int rows = std::min(kRows, T - i0);
    const int keys = i0 + rows;  // the group's last row sees keys 0 .. i0 + rows - 1
    const float* w0 = w + i0 * T;
    float* o0 = out + i0 * D;
    int d0 = 0;
    for (; d0 + kLanes <= D; d0 += kLanes) {
      if (rows == kRows) {
        Vec a0{}, a1{}, a2{}, a3{};
        for (int j = 0; j < keys; ++j) {
          const Vec xj = load(x + j * D + d0);
          a0 += w0[j] * xj;
          a1 += w0[T + j] * xj;
          a2 += w0[2 * T + j] * xj;
          a3 += w0[3 * T + j] * xj;
        }
        put(o0 + d0, mult * a0, overwrite);
        put(o0 + D + d0, mult * a1, overwrite);
        put(o0 + 2 * D + d0, mult * a2, overwrite);
        put(o0 + 3 * D + d0, mult * a3, overwrite);
      } else {
        for (int r = 0; r < rows; ++r) {
          Vec a{};
          for (int j = 0; j < keys; ++j) a += w0[r * T + j] * load(x + j * D + d0);
          put(o0 + r * D + d0, mult * a, overwrite);
        }
      }
    }
    for (; d0 < D; ++d0)  // channels beyond a multiple of kLanes
      for (int r = 0; r < rows; ++r) {
        float a = 0.0f;
        for (int j = 0; j < keys; ++j) a += w0[r * T + j] * x[j * D + d0];
        o0[r * D + d0] = (overwrite ? 0.0f : o0[r * D + d0]) + mult * a;
      }
  }
}

// w [T, T], x [T, D], out [T, D]
void accumulate_weights_transposed_times_rows(const float* w, const float* x, int T, int D, float mult, float* out,
                                              bool overwrite) {
  for (int j0 = 0; j0 < T; j0 += kRows) {
    const int cols = std::min(kRows, T - j0);  // rows of out: keys j0 .. j0 + cols - 1
    float* o0 = out + j0 * D;
    int d0 = 0;
    for (; d0 + kLanes <= D; d0 += kLanes) {
      if (cols == kRows) {
        Vec a0{}, a1{}, a2{}, a3{};
        for (int i = j0; i < T; ++i) {  // queries that see key j0 (w is 0 where they do not see j0 + c)
          const Vec xi = load(x + i * D + d0);
          const float* wi = w + i * T + j0;
          a0 += wi[0] * xi;
          a1 += wi[1] * xi;
          a2 += wi[2] * xi;
          a3 += wi[3] * xi;
        }
        put(o0 + d0, mult * a0, overwrite);
        put(o0 + D + d0, mult * a1, overwrite);
        put(o0 + 2 * D + d0, mult * a2, overwrite);
        put(o0 + 3 * D + d0, mult * a3, overwrite);
      } else {
        for (int c = 0; c < cols; ++c) {
          Vec a{};
          for (int i = j0; i < T; ++i) a += w[i * T + j0 + c] * load(x + i * D + d0);
          put(o0 + c * D + d0, mult * a, overwrite);
        }
      }
    }
    for (; d0 < D; ++d0)
      for (int c = 0; c < cols; ++c) {
        float a = 0.0f;
        for (int i = j0; i < T; ++i) a += w[i * T + j0 + c] * x[i * D + d0];
        o0[c * D + d0] = (overwrite ? 0.0f : o0[c * D + d0]) + mult * a;
      }
  }
}

}  // namespace sinklab::fused::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
