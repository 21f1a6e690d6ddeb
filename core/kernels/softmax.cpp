#include "core/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/kernels/elementwise_layout.h"
#include "core/kernels/fast_exp.h"

namespace sinklab::kernels {

void softmax_forward(const float* x, float* y, int64_t rows, int64_t cols, float inv_temperature) {
  [[maybe_unused]] const bool parallel = rows > 1 && rows * cols >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -std::numeric_limits<float>::infinity();
    // The simd pragma lets the compiler vectorize the max (it may not reorder float compares itself).
#pragma omp simd reduction(max : m)
    for (int64_t k = 0; k < cols; ++k) m = xr[k] > m ? xr[k] : m;
    if (m == -std::numeric_limits<float>::infinity()) {
      for (int64_t k = 0; k < cols; ++k) yr[k] = 0.0f;
      continue;
    }
    // One pass writes the exponentials and sums them; the simd pragma also tells the compiler that
    // x and y rows do not overlap, which saves a run-time alias check per short row.
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t k = 0; k < cols; ++k) {
      const float e = fast_exp((xr[k] - m) * inv_temperature);
      yr[k] = e;
      s += e;
    }
    const float inv = 1.0f / s;
#pragma omp simd
    for (int64_t k = 0; k < cols; ++k) yr[k] *= inv;
  }
}

void softmax_backward(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, float inv_temperature) {
  [[maybe_unused]] const bool parallel = rows > 1 && rows * cols >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const float* yr = y + r * cols;
    const float* gr = dy + r * cols;
    float* dr = dx + r * cols;
    float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
    for (int64_t k = 0; k < cols; ++k) dot += yr[k] * gr[k];
    for (int64_t k = 0; k < cols; ++k) dr[k] += inv_temperature * yr[k] * (gr[k] - dot);
  }
}

void softmax_forward_reference(const float* x, float* y, int64_t rows, int64_t cols, float inv_temperature) {
  std::vector<double> e(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < cols; ++k) m = std::max(m, static_cast<double>(x[r * cols + k]) * inv_temperature);
    double s = 0.0;
    for (int64_t k = 0; k < cols; ++k) {
      const double v = static_cast<double>(x[r * cols + k]) * inv_temperature;
      e[static_cast<size_t>(k)] = std::isinf(m) ? 0.0 : std::exp(v - m);
      s += e[static_cast<size_t>(k)];
    }
    for (int64_t k = 0; k < cols; ++k) y[r * cols + k] = s > 0.0 ? static_cast<float>(e[static_cast<size_t>(k)] / s) : 0.0f;
  }
}

void softmax_backward_reference(const float* y, const float* dy, float* dx, int64_t rows, int64_t cols, float inv_temperature) {
  // The full Jacobian J[k][j] = (y_k (delta_kj - y_j)) / T, applied as dx_j += sum_k dy_k J[k][j].
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0.0;
      const double yj = y[r * cols + j];
      for (int64_t k = 0; k < cols; ++k) {
        const double yk = y[r * cols + k];
        acc += static_cast<double>(dy[r * cols + k]) * yk * ((k == j ? 1.0 : 0.0) - yj);
      }
      dx[r * cols + j] += static_cast<float>(acc * inv_temperature);
    }
}

}  // namespace sinklab::kernels
