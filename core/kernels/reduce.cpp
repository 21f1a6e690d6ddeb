#include "core/kernels/reduce.h"

#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

void sum_forward(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, float scale) {
  [[maybe_unused]] const bool parallel = outer > 1 && outer * n * inner >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t o = 0; o < outer; ++o) {
    const float* xo = x + o * n * inner;
    float* yo = y + o * inner;
    if (inner == 1) {
      // A contiguous row: accumulate in double (long rows lose precision in float).
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int64_t k = 0; k < n; ++k) s += static_cast<double>(xo[k]);
      yo[0] = static_cast<float>(s * static_cast<double>(scale));
      continue;
    }
    // Several columns: add whole rows, so the inner loop runs over contiguous memory.
    for (int64_t i = 0; i < inner; ++i) yo[i] = 0.0f;
    for (int64_t k = 0; k < n; ++k) {
      const float* row = xo + k * inner;
      for (int64_t i = 0; i < inner; ++i) yo[i] += row[i];
    }
    for (int64_t i = 0; i < inner; ++i) yo[i] *= scale;
  }
}

void sum_backward(const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner, float scale) {
  [[maybe_unused]] const bool parallel = outer > 1 && outer * n * inner >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t o = 0; o < outer; ++o) {
    const float* g = dy + o * inner;
    float* dxo = dx + o * n * inner;
    if (inner == 1) {
      const float v = scale * g[0];
      for (int64_t k = 0; k < n; ++k) dxo[k] += v;
      continue;
    }
    for (int64_t k = 0; k < n; ++k) {
      float* row = dxo + k * inner;
      for (int64_t i = 0; i < inner; ++i) row[i] += scale * g[i];
    }
  }
}

void sum_forward_reference(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, float scale) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double s = 0.0;
      for (int64_t k = 0; k < n; ++k) s += x[(o * n + k) * inner + i];
      y[o * inner + i] = static_cast<float>(s * scale);
    }
}

void sum_backward_reference(const float* dy, float* dx, int64_t outer, int64_t n, int64_t inner, float scale) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) dx[(o * n + k) * inner + i] += scale * dy[o * inner + i];
}

}  // namespace sinklab::kernels
