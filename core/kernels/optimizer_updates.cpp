// The public kernels of core/kernels/optimizer_updates.h: each runs the copy of
// core/kernels/optimizer_updates.isa.cpp compiled for the chosen ISA level.
#include "core/kernels/optimizer_updates.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(void, adam_update, (float* p, const float* g, float* m, float* v, int64_t n, const AdamStep& s),
                   (p, g, m, v, n, s))
SINKLAB_DISPATCHED(void, sgd_update, (float* p, const float* g, int64_t n, float lr, float weight_decay),
                   (p, g, n, lr, weight_decay))
SINKLAB_DISPATCHED(void, sgd_momentum_update,
                   (float* p, const float* g, float* buf, int64_t n, float lr, float weight_decay, float momentum,
                    bool first),
                   (p, g, buf, n, lr, weight_decay, momentum, first))
SINKLAB_DISPATCHED(double, sum_of_squares, (const float* x, int64_t n), (x, n))
SINKLAB_DISPATCHED(void, scale_in_place, (float* x, int64_t n, float scale), (x, n, scale))

}  // namespace sinklab::kernels
