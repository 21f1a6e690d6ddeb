#pragma once
// Elementwise kernels over an ElementwiseLayout (see elementwise_layout.h): binary ops with NumPy
// broadcasting, scalar ops and a strided copy. Inputs a, x are strided by l.a and b by l.b; outputs y
// and incoming gradients dy are contiguous [l.numel()]. Backward kernels ACCUMULATE into da/db/dx,
// which share the strides of their inputs; a null gradient pointer is skipped. A broadcast input
// (stride 0) receives the sum of the contributions over its broadcast axes.
#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

// y = a + b, a - b, a * b, a / b
void add_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void sub_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void mul_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l);
void div_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l);

// da += dy, db += dy (add);  da += dy, db -= dy (sub)
void add_backward(const float* dy, float* da, float* db, const ElementwiseLayout& l);
void sub_backward(const float* dy, float* da, float* db, const ElementwiseLayout& l);
// da += dy * b, db += dy * a
void mul_backward(const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l);
// da += dy / b, db -= dy * a / b^2
void div_backward(const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l);

// y = x + c;  y = c * x;  y = x^p (defined for x > 0, or any x when p is an integer);  y = -x;  y = x
void add_scalar_forward(const float* x, float c, float* y, const ElementwiseLayout& l);
void mul_scalar_forward(const float* x, float c, float* y, const ElementwiseLayout& l);
void pow_scalar_forward(const float* x, float p, float* y, const ElementwiseLayout& l);
void neg_forward(const float* x, float* y, const ElementwiseLayout& l);
void copy_forward(const float* x, float* y, const ElementwiseLayout& l);
// y[0..n) = 0, split over threads for large n (fresh gradient buffers: serial zeroing was ~6% of a
// 4x4 step on two threads).
void fill_zero(float* y, int64_t n);

// dx += c * dy (mul_scalar); the other linear ops are this with c = 1 or -1.
void mul_scalar_backward(const float* dy, float c, float* dx, const ElementwiseLayout& l);
inline void add_scalar_backward(const float* dy, float* dx, const ElementwiseLayout& l) {
  mul_scalar_backward(dy, 1.0f, dx, l);
}
inline void neg_backward(const float* dy, float* dx, const ElementwiseLayout& l) {
  mul_scalar_backward(dy, -1.0f, dx, l);
}
inline void copy_backward(const float* dy, float* dx, const ElementwiseLayout& l) {
  mul_scalar_backward(dy, 1.0f, dx, l);
}
// dx += dy * p * x^(p-1)
void pow_scalar_backward(const float* x, float p, const float* dy, float* dx, const ElementwiseLayout& l);

// Row-major index (over l's output order) of the first x <= 0 or NaN, or -1 when every x > 0.
int64_t first_nonpositive(const float* x, const ElementwiseLayout& l);

}  // namespace sinklab::kernels
