#pragma once
// Counting non-finite floats (NaN, +-inf): the trainer's divergence check over losses, gradients and
// every parameter, once per step. Integer exponent tests so the loop vectorizes without fast-math.
#include <cstdint>

namespace sinklab::kernels {

// x: [n]. Number of entries that are NaN or infinite.
int64_t count_non_finite(const float* x, int64_t n);
// Naive twin for tests: std::isfinite per entry.
int64_t count_non_finite_reference(const float* x, int64_t n);

}  // namespace sinklab::kernels
