// The public kernels of core/kernels/normalization.h: each runs the copy of core/kernels/normalization.isa.cpp compiled
// for the chosen ISA level (core/cpu/isa_dispatch.h).
#include "core/kernels/normalization.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(void, layer_norm_forward,
                   (const float* x, const float* weight, const float* bias, float* y, float* mean, float* rstd,
                    int64_t rows, int64_t cols, float eps),
                   (x, weight, bias, y, mean, rstd, rows, cols, eps))
SINKLAB_DISPATCHED(void, layer_norm_backward,
                   (const float* x, const float* weight, const float* mean, const float* rstd, const float* dy,
                    float* dx, float* dweight, float* dbias, int64_t rows, int64_t cols),
                   (x, weight, mean, rstd, dy, dx, dweight, dbias, rows, cols))
SINKLAB_DISPATCHED(void, rms_norm_forward,
                   (const float* x, const float* weight, float* y, float* rstd, int64_t rows, int64_t cols, float eps),
                   (x, weight, y, rstd, rows, cols, eps))
SINKLAB_DISPATCHED(void, rms_norm_backward,
                   (const float* x, const float* weight, const float* rstd, const float* dy, float* dx, float* dweight,
                    int64_t rows, int64_t cols),
                   (x, weight, rstd, dy, dx, dweight, rows, cols))

}  // namespace sinklab::kernels
