#include "core/kernels/losses.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/fast_exp.h"

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/losses.cpp calls the chosen copy.
SINKLAB_ISA_BEGIN
#include "core/kernels/elementwise_loops.h"

namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {
namespace {

// dx += c * (self - other), self and dx strided by l.a, other by l.b. The inputs have the same shape
// (no broadcast), so every iteration writes its own element.
void residual_pass(const float* self, const float* other, float c, float* dx, const ElementwiseLayout& l) {
  for_each_chunk(l, writes_distinct(l, l.a), [&](int64_t, int64_t so, int64_t oo, int64_t len) {
    const float* sr = self + so;
    const float* orow = other + oo;
    float* xr = dx + so;
    strided_row(len, l.a[3], l.b[3], [&](int64_t, int64_t is, int64_t io) { xr[is] += c * (sr[is] - orow[io]); });
  });
}

}  // namespace

float mse_loss_forward(const float* pred, const float* target, const ElementwiseLayout& l) {
  const int64_t n = l.numel();
  if (n == 0) return 0.0f;
  // One thread, fixed order, double accumulation: the loss is bit-reproducible.
  double total = 0.0;
  for_each_chunk(l, false, [&](int64_t, int64_t po, int64_t to, int64_t len) {
    const float* pr = pred + po;
    const float* tr = target + to;
    double s = 0.0;
    if (l.a[3] == 1 && l.b[3] == 1) {
      // Vector lanes in a fixed order: the same result on every run and thread count.
#pragma omp simd reduction(+ : s)
      for (int64_t k = 0; k < len; ++k) {
        const double d = static_cast<double>(pr[k]) - static_cast<double>(tr[k]);
        s += d * d;
      }
    } else {
      strided_row(len, l.a[3], l.b[3], [&](int64_t, int64_t ip, int64_t it) {
        const double d = static_cast<double>(pr[ip]) - static_cast<double>(tr[it]);
        s += d * d;
      });
    }
    total += s;
  });
  return static_cast<float>(total / static_cast<double>(n));
}

void mse_loss_backward(const float* pred, const float* target, float g, float* dpred, float* dtarget,
                       const ElementwiseLayout& l) {
  const int64_t n = l.numel();
  if (n == 0) return;
  const float c = 2.0f * g / static_cast<float>(n);
  if (dpred) residual_pass(pred, target, c, dpred, l);
  if (dtarget) residual_pass(target, pred, c, dtarget, swapped(l));
}

float cross_entropy_forward(const float* logits, const int32_t* targets, float* lse, int64_t rows, int64_t cols) {
  [[maybe_unused]] const bool parallel = rows > 1 && rows * cols >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = logits + r * cols;
    float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
    for (int64_t k = 0; k < cols; ++k) m = xr[k] > m ? xr[k] : m;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t k = 0; k < cols; ++k) s += fast_exp(xr[k] - m);
    lse[r] = m + std::log(s);
  }
  double total = 0.0;  // rows in order: reproducible whatever the thread count
  int64_t scored = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] == kIgnoredTarget) continue;
    total += static_cast<double>(lse[r]) - logits[r * cols + targets[r]];
    ++scored;
  }
  return scored == 0 ? 0.0f : static_cast<float>(total / static_cast<double>(scored));
}

void cross_entropy_backward(const float* logits, const int32_t* targets, const float* lse, float g, float* dlogits,
                            int64_t rows, int64_t cols) {
  int64_t scored = 0;
  for (int64_t r = 0; r < rows; ++r) scored += targets[r] != kIgnoredTarget;
  if (scored == 0) return;
  const float c = g / static_cast<float>(scored);
  [[maybe_unused]] const bool parallel = rows > 1 && rows * cols >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] == kIgnoredTarget) continue;
    const float* xr = logits + r * cols;
    float* dr = dlogits + r * cols;
    const float l = lse[r];
    for (int64_t k = 0; k < cols; ++k) dr[k] += c * fast_exp(xr[k] - l);
    dr[targets[r]] -= c;
  }
}

float max_abs_error_forward(const float* a, const float* b, const ElementwiseLayout& l) {
  float worst = 0.0f;
  bool nan = false;  // a NaN anywhere makes the result NaN, so a diverged run never meets a stop rule
  for_each_chunk(l, false, [&](int64_t, int64_t ao, int64_t bo, int64_t len) {
    const float* ar = a + ao;
    const float* br = b + bo;
    float m = worst;
    bool n = false;
    if (l.a[3] == 1 && l.b[3] == 1) {
      // max is order-independent: the vectorized reduction is exact and reproducible. NaNs are
      // counted as integers (a logical-or reduction keeps GCC from vectorizing the loop).
      int nans = 0;
#pragma omp simd reduction(max : m) reduction(+ : nans)
      for (int64_t k = 0; k < len; ++k) {
        const float d = std::fabs(ar[k] - br[k]);
        m = std::max(m, d);
        nans += d != d ? 1 : 0;
      }
      n = nans > 0;
    } else {
      strided_row(len, l.a[3], l.b[3], [&](int64_t, int64_t ia, int64_t ib) {
        const float d = std::fabs(ar[ia] - br[ib]);
        m = std::max(m, d);
        n = n || (d != d);
      });
    }
    worst = m;
    nan = nan || n;
  });
  return nan ? std::numeric_limits<float>::quiet_NaN() : worst;
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
