#include "layers/tiled_attention_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/kernels/fast_exp.h"

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); layers/tiled_attention_kernels.cpp calls the
// chosen copy. GCC warns that passing a vector by value has another ABI at other levels; every function
// taking one is in this level's namespace, so no caller compiled elsewhere can disagree.
#pragma GCC diagnostic ignored "-Wpsabi"

SINKLAB_ISA_BEGIN
namespace sinklab::tiled::SINKLAB_ISA_NAMESPACE {
namespace {

// One register of floats at this level (GCC vector extension): 16 under AVX-512, 8 under AVX, 4 under
// SSE. A tile row of kTileCols keys is kChunks registers; every result is summed in the same order
// whatever the width.
constexpr int kLanes = SINKLAB_VECTOR_FLOATS;
using Vec = float __attribute__((vector_size(kLanes * sizeof(float))));
constexpr int kChunks = kTileCols / kLanes;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
static_assert(kTileCols % kLanes == 0, "a tile row is whole registers");

inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// Where each piece of one thread's scratch starts (floats).
struct Scratch {
  float *kt, *vt, *dkt, *dvt;  // [D, kTileCols] each
  float *s, *dp;               // [tile_rows, kTileCols] each
  float* acc;                  // [tile_rows, D]
  float *m, *l, *m_new;        // [tile_rows] each
  float* delta;                // [T]
};

Scratch carve(float* base, const BlockShape& shape) {
  const int64_t DT = int64_t{shape.head_dim} * kTileCols, RT = int64_t{shape.tile_rows} * kTileCols;
  Scratch s{};
  s.kt = base;
  s.vt = s.kt + DT;
  s.dkt = s.vt + DT;
  s.dvt = s.dkt + DT;
  s.s = s.dvt + DT;
  s.dp = s.s + RT;
  s.acc = s.dp + RT;
  s.m = s.acc + int64_t{shape.tile_rows} * shape.head_dim;
  s.l = s.m + shape.tile_rows;
  s.m_new = s.l + shape.tile_rows;
  s.delta = s.m_new + shape.tile_rows;
  return s;
}

// xt [D, kTileCols] = rows j0 .. j0 + C of x [T, D], transposed; columns >= C are 0.
void transpose_tile(const float* x, int j0, int C, int D, float* xt) {
  for (int d = 0; d < D; ++d) {
    float* row = xt + d * kTileCols;
    for (int c = 0; c < C; ++c) row[c] = x[(j0 + c) * D + d];
    std::fill(row + C, row + kTileCols, 0.0f);
  }
}

// s [R, kTileCols] = mult * a [R, D] x bt [D, kTileCols]: a row's kChunks registers of keys take one
// FMA each per d (kChunks independent chains).
void rows_times_tile(const float* a, int R, int D, const float* bt, float mult, float* s) {
  for (int r = 0; r < R; ++r) {
    const float* ar = a + r * D;
    Vec c[kChunks] = {};
    for (int d = 0; d < D; ++d) {
      const float x = ar[d];
      const float* b = bt + d * kTileCols;
#pragma GCC unroll 16
      for (int k = 0; k < kChunks; ++k) c[k] += x * load(b + k * kLanes);
    }
    float* sr = s + r * kTileCols;
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) store(sr + k * kLanes, mult * c[k]);
  }
}

// out [R, D] += p [R, kTileCols] (columns 0 .. C) x x [C, D]: kLanes output channels per register, four
// rows at a time so that four chains share each loaded row of x.
void accumulate_tile_times_rows(const float* p, int R, int C, const float* x, int D, float* out) {
  int d0 = 0;
  for (; d0 + kLanes <= D; d0 += kLanes) {
    int r = 0;
    for (; r + 4 <= R; r += 4) {
      const float* p0 = p + r * kTileCols;
      float* o0 = out + r * D + d0;
      Vec a0 = load(o0), a1 = load(o0 + D), a2 = load(o0 + 2 * D), a3 = load(o0 + 3 * D);
      for (int c = 0; c < C; ++c) {
        const Vec xc = load(x + c * D + d0);
        a0 += p0[c] * xc;
        a1 += p0[kTileCols + c] * xc;
        a2 += p0[2 * kTileCols + c] * xc;
        a3 += p0[3 * kTileCols + c] * xc;
      }
      store(o0, a0);
      store(o0 + D, a1);
      store(o0 + 2 * D, a2);
      store(o0 + 3 * D, a3);
    }
    for (; r < R; ++r) {
      Vec a = load(out + r * D + d0);
      for (int c = 0; c < C; ++c) a += p[r * kTileCols + c] * load(x + c * D + d0);
      store(out + r * D + d0, a);
    }
  }
  for (; d0 < D; ++d0)  // channels beyond a multiple of kLanes
    for (int r = 0; r < R; ++r) {
      float a = out[r * D + d0];
      for (int c = 0; c < C; ++c) a += p[r * kTileCols + c] * x[c * D + d0];
      out[r * D + d0] = a;
    }
}

// outt [D, kTileCols] += a [R, D]^T x p [R, kTileCols]
void accumulate_transposed(const float* a, int R, int D, const float* p, float* outt) {
  for (int d = 0; d < D; ++d) {
    float* od = outt + d * kTileCols;
    Vec c[kChunks];
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) c[k] = load(od + k * kLanes);
    for (int r = 0; r < R; ++r) {
      const float x = a[r * D + d];
      const float* pr = p + r * kTileCols;
#pragma GCC unroll 16
      for (int k = 0; k < kChunks; ++k) c[k] += x * load(pr + k * kLanes);
    }
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) store(od + k * kLanes, c[k]);
  }
}

// x [T, D] rows j0 .. j0 + C += xt [D, kTileCols] transposed back
void add_transposed_back(const float* xt, int j0, int C, int D, float* x) {
  for (int d = 0; d < D; ++d)
    for (int c = 0; c < C; ++c) x[(j0 + c) * D + d] += xt[d * kTileCols + c];
}

// Keys 0 .. visible(r) of tile row r are causally visible (query i0 + r, keys j0 ..).
inline int visible_in_tile(int i0, int r, int j0, int C) { return std::clamp(i0 + r - j0 + 1, 0, C); }

inline float sigmoid(float x) {
  const float e = kernels::fast_exp(-std::fabs(x));
  return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}

// f(x) and f'(x) of the elementwise maps.
template <TiledForm::Map kMap>
inline float map_value(float x, float bias) {
  if constexpr (kMap == TiledForm::Map::relu) return std::max(x, 0.0f);
  if constexpr (kMap == TiledForm::Map::relu2) return x > 0.0f ? x * x : 0.0f;
  if constexpr (kMap == TiledForm::Map::elu1) return x > 0.0f ? x + 1.0f : kernels::fast_exp(x);
  return sigmoid(x + bias);
}
template <TiledForm::Map kMap>
inline float map_derivative(float x, float bias) {
  if constexpr (kMap == TiledForm::Map::relu) return x > 0.0f ? 1.0f : 0.0f;
  if constexpr (kMap == TiledForm::Map::relu2) return x > 0.0f ? 2.0f * x : 0.0f;
  if constexpr (kMap == TiledForm::Map::elu1) return x > 0.0f ? 1.0f : kernels::fast_exp(x);
  const float sig = sigmoid(x + bias);
  return sig * (1.0f - sig);
}

// s [R, kTileCols] of logits -> f(x) / c_i on visible keys, 0 elsewhere (in place).
template <TiledForm::Map kMap>
void elementwise_tile(float* s, int R, int i0, int j0, int C, const BlockShape& shape, const TiledForm& form) {
  const float bias = form.bias_for(shape.seq_len);
  for (int r = 0; r < R; ++r) {
    float* sr = s + r * kTileCols;
    const int n = visible_in_tile(i0, r, j0, C);
    const float inv = 1.0f / form.divisor_of(i0 + r, shape.seq_len);
#pragma omp simd
    for (int c = 0; c < kTileCols; ++c) sr[c] = c < n ? map_value<kMap>(sr[c], bias) * inv : 0.0f;
  }
}

// p = f(x) / c_i in s and dx = f'(x) / c_i * dp in dp, on visible keys (0 elsewhere), in place.
template <TiledForm::Map kMap>
void elementwise_backward_tile(float* s, float* dp, int R, int i0, int j0, int C, const BlockShape& shape,
                               const TiledForm& form) {
  const float bias = form.bias_for(shape.seq_len);
  for (int r = 0; r < R; ++r) {
    float* sr = s + r * kTileCols;
    float* dr = dp + r * kTileCols;
    const int n = visible_in_tile(i0, r, j0, C);
    const float inv = 1.0f / form.divisor_of(i0 + r, shape.seq_len);
#pragma omp simd
    for (int c = 0; c < kTileCols; ++c) {
      const float x = sr[c];
      dr[c] = c < n ? map_derivative<kMap>(x, bias) * inv * dr[c] : 0.0f;
      sr[c] = c < n ? map_value<kMap>(x, bias) * inv : 0.0f;
    }
  }
}

template <class Fn>
void with_map(TiledForm::Map map, Fn&& fn) {
  switch (map) {
    case TiledForm::Map::relu: fn(std::integral_constant<TiledForm::Map, TiledForm::Map::relu>{}); return;
    case TiledForm::Map::relu2: fn(std::integral_constant<TiledForm::Map, TiledForm::Map::relu2>{}); return;
    case TiledForm::Map::sigmoid: fn(std::integral_constant<TiledForm::Map, TiledForm::Map::sigmoid>{}); return;
    case TiledForm::Map::elu1: fn(std::integral_constant<TiledForm::Map, TiledForm::Map::elu1>{}); return;
  }
}

// Online softmax over one key tile: s [R, kTileCols] of m x becomes the tile's exp(m x - m_new);
// each row's running max, sum and output accumulator are rescaled to the new max.
void online_softmax_tile(float* s, int R, int i0, int j0, int C, int D, Scratch& w) {
  for (int r = 0; r < R; ++r) {
    float* sr = s + r * kTileCols;
    const int n = visible_in_tile(i0, r, j0, C);
    // Mask first, then a plain max: the loop vectorizes (the max is exact, so its order does not matter);
    // with the select inside, GCC kept it scalar and, with generic tuning, branchy.
    std::fill(sr + n, sr + kTileCols, kMinusInf);
    float row_max = kMinusInf;
#pragma omp simd reduction(max : row_max)
    for (int c = 0; c < kTileCols; ++c) row_max = row_max > sr[c] ? row_max : sr[c];
    w.m_new[r] = std::max(w.m[r], row_max);  // finite: key 0 is in the first tile every row sees
  }
  for (int r = 0; r < R; ++r) {
    float* sr = s + r * kTileCols;
    const float m = w.m_new[r];
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int c = 0; c < kTileCols; ++c) {
      sr[c] = kernels::fast_exp(sr[c] - m);  // exp(-inf) = 0 on masked keys
      sum += sr[c];
    }
    const float correction = kernels::fast_exp(w.m[r] - m);  // 0 before the first tile
    w.l[r] = w.l[r] * correction + sum;
    w.m[r] = m;
    float* acc = w.acc + r * D;
    for (int d = 0; d < D; ++d) acc[d] *= correction;
  }
}

// Log-keys rows: row r of s [R, kTileCols] times its factor s_h ln(i0 + r + 1).
void scale_rows(float* s, int R, int i0, const RowMath& math) {
  for (int r = 0; r < R; ++r) {
    const float f = math.row_factor(i0 + r);
    float* sr = s + r * kTileCols;
#pragma omp simd
    for (int c = 0; c < kTileCols; ++c) sr[c] *= f;
  }
}

}  // namespace

// q, k, v, o: [T, D]; lse: [T]; rows i0 .. i0 + R of o (and lse) written.
void forward_query_tile(const float* q, const float* k, const float* v, float* o, float* lse, int i0,
                        const BlockShape& shape, const RowMath& math, float* scratch) {
  const int T = shape.seq_len, D = shape.head_dim;
  const int R = std::min(shape.tile_rows, T - i0), i_end = i0 + R;
  const bool softmax = math.form.is_softmax();
  const float mult = math.logit_scale * math.form.logit_multiplier;
  Scratch w = carve(scratch, shape);
  std::fill_n(w.acc, int64_t{R} * D, 0.0f);
  // A virtual slot (softmax_n) starts every row: its exp(c - m) = 1 at m = c; none: m = -inf, l = 0.
  const bool slot = std::isfinite(math.form.slot_logit);
  std::fill_n(w.m, R, slot ? math.form.slot_logit : kMinusInf);
  std::fill_n(w.l, R, slot ? 1.0f : 0.0f);
  for (int j0 = 0; j0 < i_end; j0 += shape.tile_cols) {  // key tiles up to the diagonal
    const int C = std::min(shape.tile_cols, i_end - j0);
    transpose_tile(k, j0, C, D, w.kt);
    rows_times_tile(q + int64_t{i0} * D, R, D, w.kt, mult, w.s);  // [R, kTileCols] logits
    if (math.form.rows == TiledForm::Rows::softmax_log_keys) scale_rows(w.s, R, i0, math);
    if (softmax)
      online_softmax_tile(w.s, R, i0, j0, C, D, w);
    else
      with_map(math.form.map,
               [&](auto map) { elementwise_tile<decltype(map)::value>(w.s, R, i0, j0, C, shape, math.form); });
    accumulate_tile_times_rows(w.s, R, C, v + int64_t{j0} * D, D, w.acc);
  }
  for (int r = 0; r < R; ++r) {
    const float inv = softmax ? 1.0f / w.l[r] : 1.0f;  // l >= 1: the row max contributes exp(0)
    for (int d = 0; d < D; ++d) o[int64_t{i0 + r} * D + d] = w.acc[r * D + d] * inv;
    if (softmax) lse[i0 + r] = w.m[r] + std::log(w.l[r]);
  }
}

// q, k, v, o, dout, dq, dk, dv: [T, D]; lse: [T]
void backward_block(const float* q, const float* k, const float* v, const float* o, const float* dout,
                    const float* lse, float* dq, float* dk, float* dv, float* dhead, const BlockShape& shape,
                    const RowMath& math, float* scratch) {
  const int T = shape.seq_len, D = shape.head_dim, Br = shape.tile_rows;
  const bool softmax = math.form.is_softmax();
  const float mult = math.logit_scale * math.form.logit_multiplier;
  Scratch w = carve(scratch, shape);
  if (softmax)  // delta_i = rowsum(dO * O) = sum_j p_ij dp_ij
    for (int i = 0; i < T; ++i) {
      float sum = 0.0f;
      for (int d = 0; d < D; ++d) sum += dout[int64_t{i} * D + d] * o[int64_t{i} * D + d];
      w.delta[i] = sum;
    }
  if (softmax && dhead && std::isfinite(math.form.slot_logit)) {  // d/dc = -sum_i a_slot,i delta_i
    float sum = 0.0f;
    for (int i = 0; i < T; ++i) sum += kernels::fast_exp(math.form.slot_logit - lse[i]) * w.delta[i];
    *dhead -= sum;
  }
  const bool log_keys = math.form.rows == TiledForm::Rows::softmax_log_keys;
  float dhead_scale = 0.0f;  // log-keys rows: sum_i ln(i + 1) sum_j x_ij dz_ij
  for (int j0 = 0; j0 < T; j0 += shape.tile_cols) {
    const int C = std::min(shape.tile_cols, T - j0);
    transpose_tile(k, j0, C, D, w.kt);
    transpose_tile(v, j0, C, D, w.vt);
    std::fill_n(w.dkt, int64_t{D} * kTileCols, 0.0f);
    std::fill_n(w.dvt, int64_t{D} * kTileCols, 0.0f);
    for (int i0 = (j0 / Br) * Br; i0 < T; i0 += Br) {  // query tiles on or below the diagonal
      const int R = std::min(Br, T - i0);
      rows_times_tile(q + int64_t{i0} * D, R, D, w.kt, mult, w.s);       // logits m x
      rows_times_tile(dout + int64_t{i0} * D, R, D, w.vt, 1.0f, w.dp);  // dP = dO V^T
      if (softmax) {
        for (int r = 0; r < R; ++r) {  // P = exp(z - lse), z = f_i m x; dS = P * (dP - delta), times f_i
          float* sr = w.s + r * kTileCols;
          float* dr = w.dp + r * kTileCols;
          const int n = visible_in_tile(i0, r, j0, C);
          const float row_lse = lse[i0 + r], row_delta = w.delta[i0 + r], f = math.row_factor(i0 + r);
          float x_dz = 0.0f;  // sum_j (m x_ij) dz_ij, for the log-keys scale
#pragma omp simd reduction(+ : x_dz)
          for (int c = 0; c < kTileCols; ++c) {
            const float p = c < n ? kernels::fast_exp(f * sr[c] - row_lse) : 0.0f;
            const float dz = p * (dr[c] - row_delta);
            x_dz += sr[c] * dz;
            sr[c] = p;
            dr[c] = f * dz;
          }
          if (log_keys) dhead_scale += std::log(static_cast<float>(i0 + r + 1)) * x_dz;
        }
      } else {
        with_map(math.form.map, [&](auto map) {
          elementwise_backward_tile<decltype(map)::value>(w.s, w.dp, R, i0, j0, C, shape, math.form);
        });
      }
      if (dv) accumulate_transposed(dout + int64_t{i0} * D, R, D, w.s, w.dvt);  // dV += P^T dO
      const int64_t tile = int64_t{R} * kTileCols;
#pragma omp simd
      for (int64_t e = 0; e < tile; ++e) w.dp[e] *= mult;  // d/d(q . k)
      if (dk) accumulate_transposed(q + int64_t{i0} * D, R, D, w.dp, w.dkt);  // dK += dS^T Q
      if (dq) accumulate_tile_times_rows(w.dp, R, C, k + int64_t{j0} * D, D, dq + int64_t{i0} * D);  // dQ += dS K
    }
    if (dk) add_transposed_back(w.dkt, j0, C, D, dk);
    if (dv) add_transposed_back(w.dvt, j0, C, D, dv);
  }
  if (log_keys && dhead) *dhead += dhead_scale;
}

}  // namespace sinklab::tiled::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
