#include "layers/rotary_embedding.h"

#include <cmath>
#include <stdexcept>

#include "core/kernels/elementwise_layout.h"

namespace sinklab {
namespace {

// The pair (2j, 2j+1) at position t turns by t * base^(-2j/D): cos and sin of every angle, [T, D/2]
// each, computed once per pass instead of once per (row, head) (a pow and a sincos per pair was 8 % of
// the kjv_char step, on one thread). Each value is the same expression as before, so the same bits.
void fill_angle_tables(int64_t T, int64_t D, float base, float* cos_table, float* sin_table) {
  for (int64_t j = 0; j < D / 2; ++j) {
    const float frequency = std::pow(base, -2.0f * static_cast<float>(j) / static_cast<float>(D));
    for (int64_t t = 0; t < T; ++t) {
      const float angle = static_cast<float>(t) * frequency;
      cos_table[t * (D / 2) + j] = std::cos(angle);
      sin_table[t * (D / 2) + j] = std::sin(angle);
    }
  }
}

// Rotates every pair of x (strided [G0, G1, T, D]) by `sign` * angle into y (strided, same shape), with
// the angle tables [T, D/2]. forward: y = R(theta) x; backward: dx += R(-theta) dy. Rows are
// independent, so they spread over the threads with the same result.
template <bool Accumulate>
void rotate(const float* x, const int64_t* xs, float* y, const int64_t* ys, int64_t B, int64_t H, int64_t T,
            int64_t D, const float* cos_table, const float* sin_table, float sign) {
  [[maybe_unused]] const bool parallel = B * H * T * D >= kernels::kParallelMinElements;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const float* xr = x + b * xs[0] + h * xs[1] + t * xs[2];
        float* yr = y + b * ys[0] + h * ys[1] + t * ys[2];
        const float* cr = cos_table + t * (D / 2);
        const float* sr = sin_table + t * (D / 2);
        for (int64_t j = 0; j < D / 2; ++j) {
          const float c = cr[j], s = sign * sr[j];
          const float x0 = xr[2 * j * xs[3]], x1 = xr[(2 * j + 1) * xs[3]];
          float& y0 = yr[2 * j * ys[3]];
          float& y1 = yr[(2 * j + 1) * ys[3]];
          if constexpr (Accumulate) {
            y0 += c * x0 - s * x1;
            y1 += s * x0 + c * x1;
          } else {
            y0 = c * x0 - s * x1;
            y1 = s * x0 + c * x1;
          }
        }
      }
}

struct RopeSaved {
  const float* cos_table;  // [T, D/2], in the graph's arena: alive until the backward pass has run
  const float* sin_table;
};

void rope_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const Tensor& y = n.output;
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  const RopeSaved& saved = n.payload<RopeSaved>();
  rotate<true>(y.grad(), ys, x.grad(), xs, x.dim(0), x.dim(1), x.dim(2), x.dim(3), saved.cos_table, saved.sin_table, -1.0f);
}

}  // namespace

Tensor rotary_embedding(Graph& g, const Tensor& x, float base) {
  if (x.rank() != 4 || x.dim(3) % 2 != 0)
    throw std::invalid_argument("rotary_embedding: expected [B, H, T, D] with even D, got " + x.shape().str());
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  const int64_t T = x.dim(2), D = x.dim(3);
  float* cos_table = g.scratch(static_cast<size_t>(T * (D / 2)));
  float* sin_table = g.scratch(static_cast<size_t>(T * (D / 2)));
  fill_angle_tables(T, D, base, cos_table, sin_table);
  rotate<false>(x.data(), xs, y.data(), ys, x.dim(0), x.dim(1), T, D, cos_table, sin_table, 1.0f);
  if (y.requires_grad()) {
    Node n;
    n.backward = rope_backward;
    n.op = "rotary_embedding";
    n.inputs = {x};
    n.output = y;
    n.set_payload(RopeSaved{cos_table, sin_table});
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
