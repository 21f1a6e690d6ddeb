// Naive twins of core/kernels/normalization.isa.cpp: double math, statistics recomputed from x, and the
// input gradient through the full row Jacobian (O(cols^2)), a formulation independent of the fast one.
#include <cmath>
#include <vector>

#include "core/kernels/normalization.h"

namespace sinklab::kernels {
namespace {

struct RowStats {
  double mean, rstd;
};

RowStats layer_stats(const float* xr, int64_t cols, float eps) {
  double s = 0.0, ss = 0.0;
  for (int64_t k = 0; k < cols; ++k) s += xr[k];
  const double mu = s / static_cast<double>(cols);
  for (int64_t k = 0; k < cols; ++k) ss += (xr[k] - mu) * (xr[k] - mu);
  return {mu, 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps)};
}

double rms_rstd(const float* xr, int64_t cols, float eps) {
  double ss = 0.0;
  for (int64_t k = 0; k < cols; ++k) ss += static_cast<double>(xr[k]) * xr[k];
  return 1.0 / std::sqrt(ss / static_cast<double>(cols) + eps);
}

double w_at(const float* weight, int64_t k) { return weight ? static_cast<double>(weight[k]) : 1.0; }

}  // namespace

void layer_norm_forward_reference(const float* x, const float* weight, const float* bias, float* y, float* mean,
                                  float* rstd, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const RowStats st = layer_stats(x + r * cols, cols, eps);
    mean[r] = static_cast<float>(st.mean);
    rstd[r] = static_cast<float>(st.rstd);
    for (int64_t k = 0; k < cols; ++k) {
      const double v = (x[r * cols + k] - st.mean) * st.rstd * w_at(weight, k) + (bias ? bias[k] : 0.0);
      y[r * cols + k] = static_cast<float>(v);
    }
  }
}

void layer_norm_backward_reference(const float* x, const float* weight, float eps, const float* dy, float* dx,
                                   float* dweight, float* dbias, int64_t rows, int64_t cols) {
  const double n = static_cast<double>(cols);
  std::vector<double> xhat(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* gr = dy + r * cols;
    const RowStats st = layer_stats(xr, cols, eps);
    for (int64_t k = 0; k < cols; ++k) xhat[static_cast<size_t>(k)] = (xr[k] - st.mean) * st.rstd;
    for (int64_t j = 0; dx && j < cols; ++j) {
      // d xhat_k / d x_j = rstd * (delta_kj - 1/n - xhat_k * xhat_j / n)
      double acc = 0.0;
      for (int64_t k = 0; k < cols; ++k) {
        const double jac = st.rstd * ((k == j ? 1.0 : 0.0) - 1.0 / n -
                                      xhat[static_cast<size_t>(k)] * xhat[static_cast<size_t>(j)] / n);
        acc += gr[k] * w_at(weight, k) * jac;
      }
      dx[r * cols + j] += static_cast<float>(acc);
    }
    for (int64_t k = 0; k < cols; ++k) {
      if (dweight) dweight[k] += static_cast<float>(gr[k] * xhat[static_cast<size_t>(k)]);
      if (dbias) dbias[k] += gr[k];
    }
  }
}

void rms_norm_forward_reference(const float* x, const float* weight, float* y, float* rstd, int64_t rows, int64_t cols,
                                float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const double rs = rms_rstd(x + r * cols, cols, eps);
    rstd[r] = static_cast<float>(rs);
    for (int64_t k = 0; k < cols; ++k) y[r * cols + k] = static_cast<float>(x[r * cols + k] * rs * w_at(weight, k));
  }
}

void rms_norm_backward_reference(const float* x, const float* weight, float eps, const float* dy, float* dx,
                                 float* dweight, int64_t rows, int64_t cols) {
  const double n = static_cast<double>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float* gr = dy + r * cols;
    const double rs = rms_rstd(xr, cols, eps);
    for (int64_t j = 0; dx && j < cols; ++j) {
      // d (x_k * rstd) / d x_j = delta_kj * rstd - x_k * x_j * rstd^3 / n
      double acc = 0.0;
      for (int64_t k = 0; k < cols; ++k) {
        const double jac = (k == j ? rs : 0.0) - static_cast<double>(xr[k]) * xr[j] * rs * rs * rs / n;
        acc += gr[k] * w_at(weight, k) * jac;
      }
      dx[r * cols + j] += static_cast<float>(acc);
    }
    for (int64_t k = 0; dweight && k < cols; ++k) dweight[k] += static_cast<float>(gr[k] * xr[k] * rs);
  }
}

}  // namespace sinklab::kernels
