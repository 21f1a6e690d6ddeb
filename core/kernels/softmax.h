#pragma once
// Row softmax with a temperature: y = softmax(x / T) over the last axis, computed stably (the row
// maximum is subtracted first). -inf entries (masked) get probability 0; a row that is entirely -inf
// has no visible entry and gives all zeros instead of NaN.
#include <cstdint>

namespace sinklab::kernels {

// x, y: [rows, cols] contiguous; inv_temperature = 1 / T > 0
void softmax_forward(const float* x, float* y, int64_t rows, int64_t cols, float inv_temperature);
// y, dy, dx: [rows, cols]; dx += (y * (dy - <y, dy>)) / T per row
void softmax_backward(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, float inv_temperature);

// Naive twins (double math) for tests.
void softmax_forward_reference(const float* x, float* y, int64_t rows, int64_t cols, float inv_temperature);
void softmax_backward_reference(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, float inv_temperature);

}  // namespace sinklab::kernels
