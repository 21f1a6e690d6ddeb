// The public kernels of core/kernels/elementwise.h: each runs the copy of core/kernels/elementwise.isa.cpp compiled for
// the chosen ISA level (core/cpu/isa_dispatch.h).
#include "core/kernels/elementwise.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(void, add_forward, (const float* a, const float* b, float* y, const ElementwiseLayout& l),
                   (a, b, y, l))
SINKLAB_DISPATCHED(void, sub_forward, (const float* a, const float* b, float* y, const ElementwiseLayout& l),
                   (a, b, y, l))
SINKLAB_DISPATCHED(void, mul_forward, (const float* a, const float* b, float* y, const ElementwiseLayout& l),
                   (a, b, y, l))
SINKLAB_DISPATCHED(void, div_forward, (const float* a, const float* b, float* y, const ElementwiseLayout& l),
                   (a, b, y, l))
SINKLAB_DISPATCHED(void, add_backward, (const float* dy, float* da, float* db, const ElementwiseLayout& l),
                   (dy, da, db, l))
SINKLAB_DISPATCHED(void, sub_backward, (const float* dy, float* da, float* db, const ElementwiseLayout& l),
                   (dy, da, db, l))
SINKLAB_DISPATCHED(void, mul_backward,
                   (const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l),
                   (a, b, dy, da, db, l))
SINKLAB_DISPATCHED(void, div_backward,
                   (const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l),
                   (a, b, dy, da, db, l))
SINKLAB_DISPATCHED(void, add_scalar_forward, (const float* x, float c, float* y, const ElementwiseLayout& l),
                   (x, c, y, l))
SINKLAB_DISPATCHED(void, mul_scalar_forward, (const float* x, float c, float* y, const ElementwiseLayout& l),
                   (x, c, y, l))
SINKLAB_DISPATCHED(void, pow_scalar_forward, (const float* x, float p, float* y, const ElementwiseLayout& l),
                   (x, p, y, l))
SINKLAB_DISPATCHED(void, neg_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, copy_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, fill_zero, (float* y, int64_t n), (y, n))
SINKLAB_DISPATCHED(void, mul_scalar_backward, (const float* dy, float c, float* dx, const ElementwiseLayout& l),
                   (dy, c, dx, l))
SINKLAB_DISPATCHED(void, pow_scalar_backward,
                   (const float* x, float p, const float* dy, float* dx, const ElementwiseLayout& l), (x, p, dy, dx, l))
SINKLAB_DISPATCHED(int64_t, first_nonpositive, (const float* x, const ElementwiseLayout& l), (x, l))

}  // namespace sinklab::kernels
