#pragma once
// Loss kernels. Each forward returns the loss value; each backward takes the upstream gradient g of
// that scalar and ACCUMULATES into the inputs' gradients (null pointers are skipped).
#include <cstdint>

#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

// pred: strided by l.a; target: strided by l.b (same shape, no broadcast); returns mean (pred - target)^2
float mse_loss_forward(const float* pred, const float* target, const ElementwiseLayout& l);
// dpred += 2 g (pred - target) / n; dtarget -= the same
void mse_loss_backward(const float* pred, const float* target, float g, float* dpred, float* dtarget,
                       const ElementwiseLayout& l);

// A target id that marks a row as not scored (a position a task has nothing to predict for).
inline constexpr int32_t kIgnoredTarget = -1;

// logits: [rows, cols] contiguous; targets: [rows], each in [0, cols) or kIgnoredTarget; lse: [rows]
// (written: each row's log-sum-exp). Returns the mean over scored rows of lse - logits[target] (0 when
// no row is scored).
float cross_entropy_forward(const float* logits, const int32_t* targets, float* lse, int64_t rows, int64_t cols);
// dlogits: [rows, cols] += (g / scored rows) * (softmax(row) - onehot(target)) on scored rows
void cross_entropy_backward(const float* logits, const int32_t* targets, const float* lse, float g, float* dlogits,
                            int64_t rows, int64_t cols);

// max |a - b| over the layout (a by l.a, b by l.b); 0 when empty; NaN when any difference is NaN
// (a stop rule must not mistake a diverged run for a converged one).
float max_abs_error_forward(const float* a, const float* b, const ElementwiseLayout& l);

// Naive twins (double math) for tests.
float mse_loss_forward_reference(const float* pred, const float* target, const ElementwiseLayout& l);
void mse_loss_backward_reference(const float* pred, const float* target, float g, float* dpred, float* dtarget,
                                 const ElementwiseLayout& l);
float cross_entropy_forward_reference(const float* logits, const int32_t* targets, int64_t rows, int64_t cols);
void cross_entropy_backward_reference(const float* logits, const int32_t* targets, float g, float* dlogits,
                                      int64_t rows, int64_t cols);
float max_abs_error_forward_reference(const float* a, const float* b, const ElementwiseLayout& l);

}  // namespace sinklab::kernels
