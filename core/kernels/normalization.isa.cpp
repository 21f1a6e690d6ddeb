#include "core/kernels/normalization.h"

#include <cmath>

#include "core/kernels/elementwise_layout.h"

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/normalization.cpp calls the chosen copy.
SINKLAB_ISA_BEGIN

namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {
namespace {

[[maybe_unused]] bool parallel_rows(int64_t rows, int64_t cols) {
  return rows > 1 && rows * cols >= kParallelMinElements;
}

// Applies the optional affine part in place: y = y * weight + bias.
void affine_row(float* y, const float* weight, const float* bias, int64_t cols) {
  if (weight)
    for (int64_t k = 0; k < cols; ++k) y[k] *= weight[k];
  if (bias)
    for (int64_t k = 0; k < cols; ++k) y[k] += bias[k];
}

}  // namespace

void layer_norm_forward(const float* x, const float* weight, const float* bias, float* y, float* mean, float* rstd,
                        int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for schedule(static) if (parallel_rows(rows, cols))
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    // Two passes (mean, then squared deviations): one-pass E[x^2] - E[x]^2 cancels badly.
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (int64_t k = 0; k < cols; ++k) s += static_cast<double>(xr[k]);
    const float mu = static_cast<float>(s / static_cast<double>(cols));
    double ss = 0.0;
#pragma omp simd reduction(+ : ss)
    for (int64_t k = 0; k < cols; ++k) {
      const double d = static_cast<double>(xr[k] - mu);
      ss += d * d;
    }
    const float rs = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(cols) + static_cast<double>(eps)));
    mean[r] = mu;
    rstd[r] = rs;
    for (int64_t k = 0; k < cols; ++k) yr[k] = (xr[k] - mu) * rs;
    affine_row(yr, weight, bias, cols);
  }
}

void layer_norm_backward(const float* x, const float* weight, const float* mean, const float* rstd, const float* dy,
                         float* dx, float* dweight, float* dbias, int64_t rows, int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  if (dx) {
#pragma omp parallel for schedule(static) if (parallel_rows(rows, cols))
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * cols;
      const float* gr = dy + r * cols;
      float* dr = dx + r * cols;
      const float mu = mean[r], rs = rstd[r];
      // With g = dy * weight and xhat = (x - mean) * rstd:
      // dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
      float sum_g = 0.0f, sum_gx = 0.0f;
#pragma omp simd reduction(+ : sum_g, sum_gx)
      for (int64_t k = 0; k < cols; ++k) {
        const float g = weight ? gr[k] * weight[k] : gr[k];
        sum_g += g;
        sum_gx += g * (xr[k] - mu) * rs;
      }
      const float mg = sum_g * inv_cols, mgx = sum_gx * inv_cols;
      for (int64_t k = 0; k < cols; ++k) {
        const float g = weight ? gr[k] * weight[k] : gr[k];
        dr[k] += rs * (g - mg - (xr[k] - mu) * rs * mgx);
      }
    }
  }
  // Parameter gradients sum over rows: one thread, rows in order, so results are reproducible.
  if (dweight || dbias) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * cols;
      const float* gr = dy + r * cols;
      const float mu = mean[r], rs = rstd[r];
      if (dweight)
        for (int64_t k = 0; k < cols; ++k) dweight[k] += gr[k] * (xr[k] - mu) * rs;
      if (dbias)
        for (int64_t k = 0; k < cols; ++k) dbias[k] += gr[k];
    }
  }
}

void rms_norm_forward(const float* x, const float* weight, float* y, float* rstd, int64_t rows, int64_t cols,
                      float eps) {
#pragma omp parallel for schedule(static) if (parallel_rows(rows, cols))
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    double ss = 0.0;
#pragma omp simd reduction(+ : ss)
    for (int64_t k = 0; k < cols; ++k) ss += static_cast<double>(xr[k]) * static_cast<double>(xr[k]);
    const float rs = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(cols) + static_cast<double>(eps)));
    rstd[r] = rs;
    for (int64_t k = 0; k < cols; ++k) yr[k] = xr[k] * rs;
    affine_row(yr, weight, nullptr, cols);
  }
}

void rms_norm_backward(const float* x, const float* weight, const float* rstd, const float* dy, float* dx,
                       float* dweight, int64_t rows, int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  if (dx) {
#pragma omp parallel for schedule(static) if (parallel_rows(rows, cols))
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * cols;
      const float* gr = dy + r * cols;
      float* dr = dx + r * cols;
      const float rs = rstd[r];
      // With g = dy * weight and xhat = x * rstd: dx = rstd * (g - xhat * mean(g * xhat))
      float sum_gx = 0.0f;
#pragma omp simd reduction(+ : sum_gx)
      for (int64_t k = 0; k < cols; ++k) sum_gx += (weight ? gr[k] * weight[k] : gr[k]) * xr[k] * rs;
      const float mgx = sum_gx * inv_cols;
      for (int64_t k = 0; k < cols; ++k) {
        const float g = weight ? gr[k] * weight[k] : gr[k];
        dr[k] += rs * (g - xr[k] * rs * mgx);
      }
    }
  }
  if (dweight) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * cols;
      const float* gr = dy + r * cols;
      const float rs = rstd[r];
      for (int64_t k = 0; k < cols; ++k) dweight[k] += gr[k] * xr[k] * rs;
    }
  }
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
