#pragma once
// Row normalizations over the last axis: LayerNorm (biased variance, as PyTorch) and RMSNorm.
// The affine parts are optional: a null weight means 1, a null bias means 0. Forward kernels store
// the per-row statistics the backward kernels need; gradient pointers that are null are skipped.
#include <cstdint>

namespace sinklab::kernels {

// x, y: [rows, cols] contiguous; weight, bias: [cols] or null; mean, rstd: [rows] (written)
// y = (x - mean) * rstd * weight + bias, rstd = 1 / sqrt(var + eps)
void layer_norm_forward(const float* x, const float* weight, const float* bias, float* y, float* mean, float* rstd,
                        int64_t rows, int64_t cols, float eps);
// dy, dx: [rows, cols]; dweight, dbias: [cols]; all gradients accumulate
void layer_norm_backward(const float* x, const float* weight, const float* mean, const float* rstd, const float* dy,
                         float* dx, float* dweight, float* dbias, int64_t rows, int64_t cols);

// x, y: [rows, cols]; weight: [cols] or null; rstd: [rows] (written)
// y = x * rstd * weight, rstd = 1 / sqrt(mean(x^2) + eps)
void rms_norm_forward(const float* x, const float* weight, float* y, float* rstd, int64_t rows, int64_t cols,
                      float eps);
void rms_norm_backward(const float* x, const float* weight, const float* rstd, const float* dy, float* dx,
                       float* dweight, int64_t rows, int64_t cols);

// Naive twins (double math; the backward ones recompute the statistics from x) for tests.
void layer_norm_forward_reference(const float* x, const float* weight, const float* bias, float* y, float* mean,
                                  float* rstd, int64_t rows, int64_t cols, float eps);
void layer_norm_backward_reference(const float* x, const float* weight, float eps, const float* dy, float* dx,
                                   float* dweight, float* dbias, int64_t rows, int64_t cols);
void rms_norm_forward_reference(const float* x, const float* weight, float* y, float* rstd, int64_t rows, int64_t cols,
                                float eps);
void rms_norm_backward_reference(const float* x, const float* weight, float eps, const float* dy, float* dx,
                                 float* dweight, int64_t rows, int64_t cols);

}  // namespace sinklab::kernels
