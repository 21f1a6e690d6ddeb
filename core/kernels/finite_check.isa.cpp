#include "core/kernels/finite_check.h"

#include <cstring>

#include "core/cpu/isa_region.h"
#include "core/kernels/elementwise_layout.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/finite_check.cpp calls the chosen copy.
SINKLAB_ISA_BEGIN

namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {

int64_t count_non_finite(const float* x, int64_t n) {
  // A float is NaN or infinite exactly when its eight exponent bits are all ones.
  constexpr uint32_t kExponent = 0x7f800000u;
  int64_t bad = 0;
#pragma omp parallel for simd reduction(+ : bad) schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad += (bits & kExponent) == kExponent ? 1 : 0;
  }
  return bad;
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
