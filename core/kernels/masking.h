#pragma once
// Causal masking of square score matrices: query row i may see keys k <= i.
#include <cstdint>

namespace sinklab::kernels {

// x, y: [batch, t, t] contiguous; y[b, i, k] = k > i ? fill : x[b, i, k]
void causal_mask_forward(const float* x, float* y, int64_t batch, int64_t t, float fill);
// dy, dx: [batch, t, t]; dx[b, i, k] += dy[b, i, k] for k <= i (the filled entries get nothing)
void causal_mask_backward(const float* dy, float* dx, int64_t batch, int64_t t);

// Naive twins for tests.
void causal_mask_forward_reference(const float* x, float* y, int64_t batch, int64_t t, float fill);
void causal_mask_backward_reference(const float* dy, float* dx, int64_t batch, int64_t t);

}  // namespace sinklab::kernels
