#pragma once
// The per-parameter loops of the optimizers (train/adam.cpp, train/sgd.cpp, train/optimizer.cpp) as
// kernels compiled per ISA level (core/kernels/optimizer_updates.isa.cpp): every parameter is touched
// once per step, and at the levels with FMA the updates fuse as the rest of the step's arithmetic does.
#include <cstdint>

namespace sinklab::kernels {

// The scalars of one Adam step (train/adam.h).
struct AdamStep {
  float beta1, beta2, eps;
  float l2;         // Adam's L2 term: g + l2 * p (0 for AdamW)
  float shrink;     // AdamW's decoupled decay: p * shrink (1 for Adam)
  float step_size;  // lr / (1 - beta1^t)
  float bc2_sqrt;   // sqrt(1 - beta2^t)
};

// p, g, m, v: [n]. m, v updated; p -= step_size * m / (sqrt(v) / bc2_sqrt + eps).
void adam_update(float* p, const float* g, float* m, float* v, int64_t n, const AdamStep& s);
// p, g: [n]. p -= lr * (g + weight_decay * p).
void sgd_update(float* p, const float* g, int64_t n, float lr, float weight_decay);
// p, g, buf: [n]. buf = g' (first step) or momentum * buf + g', g' = g + weight_decay * p; p -= lr * buf.
void sgd_momentum_update(float* p, const float* g, float* buf, int64_t n, float lr, float weight_decay, float momentum,
                         bool first);
// sum_i x[i]^2 in double, in a fixed order that depends on n (and the ISA level), not on the threads. x: [n]
double sum_of_squares(const float* x, int64_t n);
// x *= scale. x: [n]
void scale_in_place(float* x, int64_t n, float scale);

}  // namespace sinklab::kernels
