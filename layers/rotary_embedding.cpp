#include "layers/rotary_embedding.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "core/kernels/elementwise_layout.h"

namespace sinklab {
namespace {

// cos and sin of every angle, [T, R/2] each, computed once per pass instead of once per (row, head) (a
// pow and a sincos per pair was 8 % of the kjv_char step, on one thread). Without explicit frequencies
// each value is the expression sinklab's RoPE always used, so its models keep their bits.
void fill_angle_tables(int64_t T, int64_t R, const RotarySpec& spec, float* cos_table, float* sin_table) {
  for (int64_t j = 0; j < R / 2; ++j) {
    const float frequency = spec.inverse_frequencies
                                ? (*spec.inverse_frequencies)[static_cast<size_t>(j)]
                                : std::pow(spec.base, -2.0f * static_cast<float>(j) / static_cast<float>(R));
    for (int64_t t = 0; t < T; ++t) {
      const float angle = static_cast<float>(spec.position_offset + t) * frequency;
      cos_table[t * (R / 2) + j] = std::cos(angle);
      sin_table[t * (R / 2) + j] = std::sin(angle);
    }
  }
}

struct Geometry {
  int32_t R;       // rotated coordinates
  int32_t second;  // offset of a pair's second coordinate from its first: 1 (interleaved) or R/2 (halves)
  int32_t step;    // offset between the first coordinates of pairs j and j+1: 2 or 1
};

Geometry geometry_of(const RotarySpec& spec, int64_t D) {
  const auto R = static_cast<int32_t>(spec.dims > 0 ? spec.dims : D);
  return spec.pairing == RopePairing::interleaved ? Geometry{R, 1, 2} : Geometry{R, R / 2, 1};
}

// Turns every pair of x (strided [G0, G1, T, D]) by `sign` * angle into y (strided, same shape), with
// the angle tables [T, R/2]; coordinates R.. pass through. forward: y = R(theta) x; backward: dx +=
// R(-theta) dy. Rows are independent, so they spread over the threads with the same result.
template <bool Accumulate>
void rotate(const float* x, const int64_t* xs, float* y, const int64_t* ys, int64_t B, int64_t H, int64_t T,
            int64_t D, const Geometry& geo, const float* cos_table, const float* sin_table, float sign) {
  [[maybe_unused]] const bool parallel = B * H * T * D >= kernels::kParallelMinElements;
  const int64_t R = geo.R;
#pragma omp parallel for collapse(2) schedule(static) if (parallel)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const float* xr = x + b * xs[0] + h * xs[1] + t * xs[2];
        float* yr = y + b * ys[0] + h * ys[1] + t * ys[2];
        const float* cr = cos_table + t * (R / 2);
        const float* sr = sin_table + t * (R / 2);
        for (int64_t j = 0; j < R / 2; ++j) {
          const int64_t i0 = j * geo.step, i1 = i0 + geo.second;
          const float c = cr[j], s = sign * sr[j];
          const float x0 = xr[i0 * xs[3]], x1 = xr[i1 * xs[3]];
          float& y0 = yr[i0 * ys[3]];
          float& y1 = yr[i1 * ys[3]];
          if constexpr (Accumulate) {
            y0 += c * x0 - s * x1;
            y1 += s * x0 + c * x1;
          } else {
            y0 = c * x0 - s * x1;
            y1 = s * x0 + c * x1;
          }
        }
        for (int64_t i = R; i < D; ++i) {
          if constexpr (Accumulate) yr[i * ys[3]] += xr[i * xs[3]];
          else yr[i * ys[3]] = xr[i * xs[3]];
        }
      }
}

struct RopeSaved {
  const float* cos_table;  // [T, R/2], in the graph's arena: alive until the backward pass has run
  const float* sin_table;
  Geometry geometry;
};

void rope_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const Tensor& y = n.output;
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  const RopeSaved& saved = n.payload<RopeSaved>();
  rotate<true>(y.grad(), ys, x.grad(), xs, x.dim(0), x.dim(1), x.dim(2), x.dim(3), saved.geometry, saved.cos_table,
               saved.sin_table, -1.0f);
}

}  // namespace

Tensor rotary_embedding(Graph& g, const Tensor& x, const RotarySpec& spec) {
  if (x.rank() != 4) throw std::invalid_argument("rotary_embedding: expected [B, H, T, D], got " + x.shape().str());
  const int64_t T = x.dim(2), D = x.dim(3);
  const Geometry geo = geometry_of(spec, D);
  if (geo.R % 2 != 0 || geo.R > D || geo.R < 2)
    throw std::invalid_argument("rotary_embedding: " + std::to_string(geo.R) + " rotated coordinates of a head of " +
                                std::to_string(D) + " (needs an even number, at most the head width)");
  if (spec.inverse_frequencies && static_cast<int64_t>(spec.inverse_frequencies->size()) != geo.R / 2)
    throw std::invalid_argument("rotary_embedding: " + std::to_string(spec.inverse_frequencies->size()) +
                                " frequencies for " + std::to_string(geo.R / 2) + " pairs");
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  const int64_t xs[4] = {x.stride(0), x.stride(1), x.stride(2), x.stride(3)};
  const int64_t ys[4] = {y.stride(0), y.stride(1), y.stride(2), y.stride(3)};
  float* cos_table = g.scratch(static_cast<size_t>(T * (geo.R / 2)));
  float* sin_table = g.scratch(static_cast<size_t>(T * (geo.R / 2)));
  fill_angle_tables(T, geo.R, spec, cos_table, sin_table);
  rotate<false>(x.data(), xs, y.data(), ys, x.dim(0), x.dim(1), T, D, geo, cos_table, sin_table, 1.0f);
  if (y.requires_grad()) {
    Node n;
    n.backward = rope_backward;
    n.op = "rotary_embedding";
    n.inputs = {x};
    n.output = y;
    n.set_payload(RopeSaved{cos_table, sin_table, geo});
    g.record(n);
  }
  return y;
}

Tensor rotary_embedding(Graph& g, const Tensor& x, float base) {
  RotarySpec spec;
  spec.base = base;
  return rotary_embedding(g, x, spec);
}

std::vector<float> rope_inverse_frequencies(const RopeConfig& rope, int64_t rotated_dims) {
  const int64_t R = rotated_dims;
  std::vector<float> inv(static_cast<size_t>(R / 2));
  for (int64_t j = 0; j < R / 2; ++j) {
    // 1 / theta^(2j/R) in float32, the form of the checkpoints' own code (torch: 1.0 / base ** (arange / dim)).
    const float exponent = static_cast<float>(2 * j) / static_cast<float>(R);
    inv[static_cast<size_t>(j)] = 1.0f / std::pow(static_cast<float>(rope.theta), exponent);
  }
  if (rope.scaling == RopeScaling::linear) {
    for (float& f : inv) f = static_cast<float>(f / rope.factor);
  } else if (rope.scaling == RopeScaling::llama3) {
    // Llama-3.1: wavelengths longer than original / low_freq_factor are stretched by factor, shorter
    // than original / high_freq_factor kept, and the band between blended linearly in original/wavelength.
    const double original = rope.original_max_positions;
    const double low_wavelength = original / rope.low_freq_factor, high_wavelength = original / rope.high_freq_factor;
    for (float& f : inv) {
      const double wavelength = 2 * std::numbers::pi / f;
      if (wavelength < high_wavelength) continue;
      if (wavelength > low_wavelength) {
        f = static_cast<float>(f / rope.factor);
        continue;
      }
      const double smooth =
          (original / wavelength - rope.low_freq_factor) / (rope.high_freq_factor - rope.low_freq_factor);
      f = static_cast<float>((1 - smooth) * f / rope.factor + smooth * f);
    }
  }
  return inv;
}

}  // namespace sinklab
