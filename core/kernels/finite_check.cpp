#include "core/kernels/finite_check.h"

#include <cmath>
#include <cstring>

namespace sinklab::kernels {

int64_t count_non_finite(const float* x, int64_t n) {
  // A float is NaN or infinite exactly when its eight exponent bits are all ones.
  constexpr uint32_t kExponent = 0x7f800000u;
  int64_t bad = 0;
#pragma omp simd reduction(+ : bad)
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad += (bits & kExponent) == kExponent ? 1 : 0;
  }
  return bad;
}

int64_t count_non_finite_reference(const float* x, int64_t n) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += std::isfinite(x[i]) ? 0 : 1;
  return bad;
}

}  // namespace sinklab::kernels
