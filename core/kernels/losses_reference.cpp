// Naive twins of core/kernels/losses.isa.cpp (double math, flat loops).
#include <algorithm>
#include <cmath>

#include "core/kernels/elementwise_reference.h"
#include "core/kernels/losses.h"

namespace sinklab::kernels {

float mse_loss_forward_reference(const float* pred, const float* target, const ElementwiseLayout& l) {
  double s = 0.0;
  for (int64_t i = 0; i < l.numel(); ++i) {
    const double d = static_cast<double>(pred[offset_a(l, i)]) - target[offset_b(l, i)];
    s += d * d;
  }
  return l.numel() == 0 ? 0.0f : static_cast<float>(s / static_cast<double>(l.numel()));
}

void mse_loss_backward_reference(const float* pred, const float* target, float g, float* dpred, float* dtarget,
                                 const ElementwiseLayout& l) {
  const double n = static_cast<double>(l.numel());
  for (int64_t i = 0; i < l.numel(); ++i) {
    const double d = static_cast<double>(pred[offset_a(l, i)]) - target[offset_b(l, i)];
    if (dpred) dpred[offset_a(l, i)] += static_cast<float>(2.0 * g * d / n);
    if (dtarget) dtarget[offset_b(l, i)] -= static_cast<float>(2.0 * g * d / n);
  }
}

float cross_entropy_forward_reference(const float* logits, const int32_t* targets, int64_t rows, int64_t cols) {
  double total = 0.0;
  int64_t scored = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] == kIgnoredTarget) continue;
    ++scored;
    // -log softmax(row)[target], with the softmax computed directly (max-shifted) in double.
    const float* xr = logits + r * cols;
    double m = xr[0];
    for (int64_t k = 1; k < cols; ++k) m = std::max(m, static_cast<double>(xr[k]));
    double s = 0.0;
    for (int64_t k = 0; k < cols; ++k) s += std::exp(xr[k] - m);
    total += -std::log(std::exp(xr[targets[r]] - m) / s);
  }
  return scored == 0 ? 0.0f : static_cast<float>(total / static_cast<double>(scored));
}

void cross_entropy_backward_reference(const float* logits, const int32_t* targets, float g, float* dlogits,
                                      int64_t rows, int64_t cols) {
  int64_t scored = 0;
  for (int64_t r = 0; r < rows; ++r) scored += targets[r] != kIgnoredTarget;
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] == kIgnoredTarget) continue;
    const float* xr = logits + r * cols;
    double m = xr[0];
    for (int64_t k = 1; k < cols; ++k) m = std::max(m, static_cast<double>(xr[k]));
    double s = 0.0;
    for (int64_t k = 0; k < cols; ++k) s += std::exp(xr[k] - m);
    for (int64_t k = 0; k < cols; ++k) {
      const double p = std::exp(xr[k] - m) / s;
      dlogits[r * cols + k] +=
          static_cast<float>(g * (p - (k == targets[r] ? 1.0 : 0.0)) / static_cast<double>(scored));
    }
  }
}

float max_abs_error_forward_reference(const float* a, const float* b, const ElementwiseLayout& l) {
  double worst = 0.0;
  for (int64_t i = 0; i < l.numel(); ++i) {
    const double d = std::fabs(static_cast<double>(a[offset_a(l, i)]) - b[offset_b(l, i)]);
    if (std::isnan(d)) return std::nanf("");
    worst = std::max(worst, d);
  }
  return static_cast<float>(worst);
}

}  // namespace sinklab::kernels
