// The public kernels of core/kernels/finite_check.h: each runs the copy of core/kernels/finite_check.isa.cpp compiled
// for the chosen ISA level (core/cpu/isa_dispatch.h).
#include "core/kernels/finite_check.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(int64_t, count_non_finite, (const float* x, int64_t n), (x, n))

}  // namespace sinklab::kernels
