#include "layers/rotary_embedding.h"

#include <cmath>
#include <stdexcept>

namespace sinklab {
namespace {

// Rotates every pair of x (strided [B, H, T, D]) by `sign` * angle into y (dense [B, H, T, D]).
// forward: y = R(theta) x; backward: dx += R(-theta) dy.
template <bool Accumulate>
void rotate(const float* x, const int64_t* xs, float* y, const int64_t* ys, int64_t B, int64_t H, int64_t T,
            int64_t D, float base, float sign) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const float* xr = x + b * xs[0] + h * xs[1] + t * xs[2];
        float* yr = y + b * ys[0] + h * ys[1] + t * ys[2];
        for (int64_t j = 0; j < D / 2; ++j) {
          const float angle = static_cast<float>(t) * std::pow(base, -2.0f * static_cast<float>(j) / static_cast<float>(D));
          const float c = std::cos(angle), s = sign * std::sin(angle);
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
  float base;
};

void rope_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const Tensor& y = n.output;
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  rotate<true>(y.grad(), ys, x.grad(), xs, x.dim(0), x.dim(1), x.dim(2), x.dim(3), n.payload<RopeSaved>().base, -1.0f);
}

}  // namespace

Tensor rotary_embedding(Graph& g, const Tensor& x, float base) {
  if (x.rank() != 4 || x.dim(3) % 2 != 0)
    throw std::invalid_argument("rotary_embedding: expected [B, H, T, D] with even D, got " + x.shape().str());
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  rotate<false>(x.data(), xs, y.data(), ys, x.dim(0), x.dim(1), x.dim(2), x.dim(3), base, 1.0f);
  if (y.requires_grad()) {
    Node n;
    n.backward = rope_backward;
    n.op = "rotary_embedding";
    n.inputs = {x};
    n.output = y;
    n.set_payload(RopeSaved{base});
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
