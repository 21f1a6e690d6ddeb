#pragma once
// The per-row facts attention hands its observers besides the weights (core/observe/attention_observer.h):
// virtual mass per row and the value norms per key. Computed only on steps with observers.
#include <cstdint>

#include "layers/normalizers/normalizer.h"

namespace sinklab {

// virtual_mass [H, B, T] from scores, probs [H, B, T, T] and head_params [H, P] (null when P = 0):
// the normalizer's virtual_mass() of every row (NaN where undefined).
void fill_virtual_mass(const Normalizer& normalizer, const float* scores, const float* probs,
                       const float* head_params, int64_t H, int64_t B, int64_t T, float* virtual_mass);

// value_norms [H, B, T] = ||W_O^h v_hbk|| and value_norms_v [H, B, T] = ||v_hbk|| from
// v [H, B, T, D] and w_o [C, H * D] (PyTorch layout: W_O^h is columns h*D .. h*D+D-1).
void fill_value_norms(const float* v, const float* w_o, int64_t H, int64_t B, int64_t T, int64_t D, int64_t C,
                      float* value_norms, float* value_norms_v);

}  // namespace sinklab
