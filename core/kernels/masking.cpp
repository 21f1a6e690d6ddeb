#include "core/kernels/masking.h"

#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

void causal_mask_forward(const float* x, float* y, int64_t batch, int64_t t, float fill) {
  const int64_t rows = batch * t;
  [[maybe_unused]] const bool parallel = rows > 1 && rows * t >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % t;
    const float* xr = x + r * t;
    float* yr = y + r * t;
    for (int64_t k = 0; k <= i; ++k) yr[k] = xr[k];
    for (int64_t k = i + 1; k < t; ++k) yr[k] = fill;
  }
}

void causal_mask_backward(const float* dy, float* dx, int64_t batch, int64_t t) {
  const int64_t rows = batch * t;
  [[maybe_unused]] const bool parallel = rows > 1 && rows * t >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % t;
    const float* gr = dy + r * t;
    float* dr = dx + r * t;
    for (int64_t k = 0; k <= i; ++k) dr[k] += gr[k];
  }
}

void causal_mask_forward_reference(const float* x, float* y, int64_t batch, int64_t t, float fill) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < t; ++i)
      for (int64_t k = 0; k < t; ++k) {
        const int64_t at = (b * t + i) * t + k;
        y[at] = k > i ? fill : x[at];
      }
}

void causal_mask_backward_reference(const float* dy, float* dx, int64_t batch, int64_t t) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < t; ++i)
      for (int64_t k = 0; k < t; ++k) {
        const int64_t at = (b * t + i) * t + k;
        if (k <= i) dx[at] += dy[at];
      }
}

}  // namespace sinklab::kernels
