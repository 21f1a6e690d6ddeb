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

// virtual_mass [H, B, T] of rows normalized with a leading slot (the key-bias token; attention_weights
// with slot logits): the slot's weight plus what the normalizer's virtual_mass() says of the whole row
// [slot, keys] (0 for simplex rows, NaN for unnormalized ones). slot_logits, slot_weights: [H, B, T];
// row_buffer: 2 (T + 1) floats.
void fill_virtual_mass_with_slot(const Normalizer& normalizer, const float* scores, const float* slot_logits,
                                 const float* probs, const float* slot_weights, const float* head_params, int64_t H,
                                 int64_t B, int64_t T, float* row_buffer, float* virtual_mass);

// mean_gate [H, N] = the mean over G channels of gate [H, N, G] (N = B * T rows): the output gate of
// every row as AttentionView::gate reports it.
void fill_mean_gate(const float* gate, int64_t H, int64_t N, int64_t G, float* mean_gate);

// value_norms [H, B, T] = ||W_O^h v_hbk|| and value_norms_v [H, B, T] = ||v_hbk|| from
// v [H, B, T, D] and w_o [C, H * D] (PyTorch layout: W_O^h is columns h*D .. h*D+D-1). gram: room for
// H * D * D doubles, the scratch of ||W_O^h v||^2 = v^T (W_O^h^T W_O^h) v, which costs D^2 per key where
// the product W_O^h v costs C * D (12x less at GPT-2's D 64, C 768).
void fill_value_norms(const float* v, const float* w_o, int64_t H, int64_t B, int64_t T, int64_t D, int64_t C,
                      double* gram, float* value_norms, float* value_norms_v);

}  // namespace sinklab
