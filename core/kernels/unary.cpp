// The public kernels of core/kernels/unary.h: each runs the copy of core/kernels/unary.isa.cpp compiled for
// the chosen ISA level (core/cpu/isa_dispatch.h).
#include "core/kernels/unary.h"

#include "core/cpu/isa_dispatch.h"

namespace sinklab::kernels {

SINKLAB_DISPATCHED(void, exp_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, log_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, tanh_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, sigmoid_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, relu_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, gelu_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, gelu_tanh_forward, (const float* x, float* y, const ElementwiseLayout& l), (x, y, l))
SINKLAB_DISPATCHED(void, exp_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, log_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, tanh_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, sigmoid_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, relu_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, gelu_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))
SINKLAB_DISPATCHED(void, gelu_tanh_backward,
                   (const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l),
                   (x, y, dy, dx, l))

}  // namespace sinklab::kernels
