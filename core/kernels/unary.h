#pragma once
// Unary elementwise kernels. x: strided by l.a (see elementwise_layout.h); y, dy: contiguous
// [l.numel()]; dx: strided like x, ACCUMULATES (skipped when null). Backward kernels read whichever
// of x and y makes the derivative cheap.
#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

// y = exp(x), log(x), tanh(x), 1 / (1 + exp(-x)), max(x, 0), x * Phi(x) (exact erf form),
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (GPT-2's tanh approximation, "gelu_new")
void exp_forward(const float* x, float* y, const ElementwiseLayout& l);
void log_forward(const float* x, float* y, const ElementwiseLayout& l);
void tanh_forward(const float* x, float* y, const ElementwiseLayout& l);
void sigmoid_forward(const float* x, float* y, const ElementwiseLayout& l);
void relu_forward(const float* x, float* y, const ElementwiseLayout& l);
void gelu_forward(const float* x, float* y, const ElementwiseLayout& l);
void gelu_tanh_forward(const float* x, float* y, const ElementwiseLayout& l);

// dx += dy * f'(x)
void exp_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void log_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void tanh_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void sigmoid_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void relu_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void gelu_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void gelu_tanh_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);

// Naive twins (double math, derivatives from x alone) for tests.
void exp_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void log_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void tanh_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void sigmoid_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void relu_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void gelu_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void gelu_tanh_forward_reference(const float* x, float* y, const ElementwiseLayout& l);
void exp_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void log_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void tanh_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void sigmoid_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void relu_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void gelu_backward_reference(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l);
void gelu_tanh_backward_reference(const float* x, const float* y, const float* dy, float* dx,
                                  const ElementwiseLayout& l);

}  // namespace sinklab::kernels
