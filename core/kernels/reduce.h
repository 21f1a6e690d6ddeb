#pragma once
// Sum (and, with scale = 1/n, mean) over one axis of a contiguous tensor viewed as [outer, n, inner]:
// the reduced axis in the middle, everything before it in `outer`, everything after it in `inner`.
#include <cstdint>

namespace sinklab::kernels {

// x: [outer, n, inner] contiguous; y: [outer, inner]; y[o, i] = scale * sum_k x[o, k, i]
void sum_forward(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, float scale);
// dy: [outer, inner]; dx: [outer, n, inner] += scale * dy[o, i] for every k
void sum_backward(const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner, float scale);

// Naive twins (double accumulation) for tests.
void sum_forward_reference(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, float scale);
void sum_backward_reference(const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner, float scale);

}  // namespace sinklab::kernels
