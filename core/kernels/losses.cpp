// The public kernels of core/kernels/losses.h: each runs the copy of core/kernels/losses.isa.cpp compiled for
// the chosen ISA level (core/cpu/isa_dispatch.h).
#include "core/kernels/losses.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(float, mse_loss_forward, (const float* pred, const float* target, const ElementwiseLayout& l),
                   (pred, target, l))
SINKLAB_DISPATCHED(void, mse_loss_backward,
                   (const float* pred, const float* target, float g, float* dpred, float* dtarget,
                    const ElementwiseLayout& l),
                   (pred, target, g, dpred, dtarget, l))
SINKLAB_DISPATCHED(float, cross_entropy_forward,
                   (const float* logits, const int32_t* targets, float* lse, int64_t rows, int64_t cols),
                   (logits, targets, lse, rows, cols))
SINKLAB_DISPATCHED(void, cross_entropy_backward,
                   (const float* logits, const int32_t* targets, const float* lse, float g, float* dlogits,
                    int64_t rows, int64_t cols),
                   (logits, targets, lse, g, dlogits, rows, cols))
SINKLAB_DISPATCHED(float, max_abs_error_forward, (const float* a, const float* b, const ElementwiseLayout& l),
                   (a, b, l))

}  // namespace sinklab::kernels
