#include "run_files/half_float.h"

#include <bit>

namespace sinklab {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // subnormal: shift until normal
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mantissa & 0x3ffu) << 13);
  } else {
    bits = sign;
  }
  return std::bit_cast<float>(bits);
}

std::optional<uint16_t> exact_half(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const int exponent = static_cast<int>((bits >> 23) & 0xffu);
  const uint32_t mantissa = bits & 0x7fffffu;
  uint16_t half = 0;
  if (exponent == 0xff) {
    half = static_cast<uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u : 0u));
  } else if (exponent == 0) {
    half = sign;  // ±0; a float subnormal is never a half and fails the check below
  } else {
    const int e = exponent - 127 + 15;
    if (e >= 31) return std::nullopt;
    if (e >= 1) {
      half = static_cast<uint16_t>(sign | (e << 10) | (mantissa >> 13));
    } else {
      const int shift = 14 - e;  // a half subnormal: the implicit bit joins the mantissa
      if (shift > 24) return std::nullopt;
      half = static_cast<uint16_t>(sign | ((0x800000u | mantissa) >> shift));
    }
  }
  const float back = half_to_float(half);
  if (value != value) return back != back ? std::optional<uint16_t>(half) : std::nullopt;  // NaN stays NaN
  if (std::bit_cast<uint32_t>(back) != bits) return std::nullopt;
  return half;
}

}  // namespace sinklab
