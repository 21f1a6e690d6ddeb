// The naive twin of core/kernels/finite_check.isa.cpp.
#include <cmath>

#include "core/kernels/finite_check.h"

namespace sinklab::kernels {

int64_t count_non_finite_reference(const float* x, int64_t n) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += std::isfinite(x[i]) ? 0 : 1;
  return bad;
}

}  // namespace sinklab::kernels
