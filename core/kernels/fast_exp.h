#pragma once
// exp(x) for float, written as plain arithmetic so that loops calling it vectorize (a libm call in a
// loop keeps the loop scalar; softmax rows run ~2.5x faster with this). Accuracy: within 1.3 ulp of
// the exact value over [-86.5, 88.7] (measured on a 1e-3 grid against double exp). exp(-inf) = 0
// exactly (masked scores), results below 2.6e-38 flush to 0, overflow gives +inf, NaN stays NaN.
// Pure IEEE arithmetic: the same bits at every vector width; at the ISA levels with FMA (avx and up) the
// compiler fuses the polynomial's steps, so the bits are per level, as every kernel's are.
#include <bit>
#include <cstdint>
#include <limits>

namespace sinklab::kernels {

inline float fast_exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // few mantissa bits: k * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: (v + kRound) - kRound rounds v to an integer
  constexpr float kLow = -86.5f, kHigh = 88.72f;
  // Clamp (and replace NaN) first so the integer conversion below is always defined.
  float xc = x != x ? 0.0f : x;
  xc = xc < kLow ? kLow : (xc > kHigh ? kHigh : xc);
  // exp(x) = 2^k * exp(r), k = round(x / ln 2), |r| <= ln(2) / 2.
  const float k = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - k * kLn2Hi) - k * kLn2Lo;
  // Taylor polynomial of degree 7 (truncation error < 6e-9 on |r| <= 0.347), Horner form.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^k as 2^(k-1) * 2 keeps the exponent field in range for k in [-125, 128].
  const float half_scale = std::bit_cast<float>((static_cast<int32_t>(k) + 126) << 23);
  float y = (p * half_scale) * 2.0f;
  y = x < kLow ? 0.0f : y;
  y = x > kHigh ? std::numeric_limits<float>::infinity() : y;
  return x != x ? x : y;
}

}  // namespace sinklab::kernels
