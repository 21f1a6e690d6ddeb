#include "layers/attention_row_facts.h"

#include <algorithm>
#include <cmath>

namespace sinklab {

// scores, probs: [H, B, T, T]; virtual_mass: [H, B, T]
void fill_virtual_mass(const Normalizer& normalizer, const float* scores, const float* probs,
                       const float* head_params, int64_t H, int64_t B, int64_t T, float* virtual_mass) {
  const int P = normalizer.params_per_head();
  for (int64_t h = 0; h < H; ++h)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < T; ++i) {
        const int64_t row = (h * B + b) * T + i;
        const RowSpec spec{static_cast<int>(i), static_cast<int>(i + 1), static_cast<int>(T), static_cast<int>(h)};
        virtual_mass[row] = normalizer.virtual_mass(scores + row * T, probs + row * T, spec,
                                                    P > 0 ? head_params + h * P : nullptr);
      }
}

// scores, probs: [H, B, T, T]; slot_logits, slot_weights, virtual_mass: [H, B, T]
void fill_virtual_mass_with_slot(const Normalizer& normalizer, const float* scores, const float* slot_logits,
                                 const float* probs, const float* slot_weights, const float* head_params, int64_t H,
                                 int64_t B, int64_t T, float* row_buffer, float* virtual_mass) {
  const int P = normalizer.params_per_head();
  float* s_row = row_buffer;  // [T + 1] each, slot first
  float* p_row = row_buffer + T + 1;
  for (int64_t h = 0; h < H; ++h)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < T; ++i) {
        const int64_t row = (h * B + b) * T + i;
        s_row[0] = slot_logits[row];
        p_row[0] = slot_weights[row];
        std::copy_n(scores + row * T, i + 1, s_row + 1);
        std::copy_n(probs + row * T, i + 1, p_row + 1);
        const RowSpec spec{static_cast<int>(i), static_cast<int>(i + 2), static_cast<int>(T), static_cast<int>(h)};
        virtual_mass[row] =
            slot_weights[row] + normalizer.virtual_mass(s_row, p_row, spec, P > 0 ? head_params + h * P : nullptr);
      }
}

// gate: [H, N, G]; mean_gate: [H, N]
void fill_mean_gate(const float* gate, int64_t H, int64_t N, int64_t G, float* mean_gate) {
  for (int64_t row = 0; row < H * N; ++row) {
    float sum = 0.0f;
    for (int64_t c = 0; c < G; ++c) sum += gate[row * G + c];
    mean_gate[row] = sum / static_cast<float>(G);
  }
}

// v: [H, B, T, D]; w_o: [C, H*D]; gram: [H, D, D]; value_norms, value_norms_v: [H, B, T]
void fill_value_norms(const float* v, const float* w_o, int64_t H, int64_t B, int64_t T, int64_t D, int64_t C,
                      double* gram, float* value_norms, float* value_norms_v) {
  // G_h = W_O^h^T W_O^h in double, the upper triangle summed over the C rows of W_O, then mirrored.
#pragma omp parallel for schedule(static) if (H * C * D * D >= (1 << 20))
  for (int64_t h = 0; h < H; ++h) {
    double* g = gram + h * D * D;
    std::fill_n(g, D * D, 0.0);
    for (int64_t c = 0; c < C; ++c) {
      const float* w = w_o + c * H * D + h * D;
      for (int64_t a = 0; a < D; ++a) {
        const double wa = w[a];
#pragma omp simd
        for (int64_t b = a; b < D; ++b) g[a * D + b] += wa * static_cast<double>(w[b]);
      }
    }
    for (int64_t a = 0; a < D; ++a)
      for (int64_t b = 0; b < a; ++b) g[a * D + b] = g[b * D + a];
  }
#pragma omp parallel for schedule(static) if (H * B * T * D * D >= (1 << 20))
  for (int64_t row = 0; row < H * B * T; ++row) {
    const double* g = gram + (row / (B * T)) * D * D;
    const float* vk = v + row * D;
    double u_sq = 0.0, v_sq = 0.0;
    for (int64_t a = 0; a < D; ++a) {
      double ga_v = 0.0;  // (G v)_a
#pragma omp simd reduction(+ : ga_v)
      for (int64_t b = 0; b < D; ++b) ga_v += g[a * D + b] * static_cast<double>(vk[b]);
      u_sq += static_cast<double>(vk[a]) * ga_v;
      v_sq += static_cast<double>(vk[a]) * vk[a];
    }
    value_norms[row] = static_cast<float>(std::sqrt(std::max(u_sq, 0.0)));  // rounding may dip below 0
    value_norms_v[row] = static_cast<float>(std::sqrt(v_sq));
  }
}

}  // namespace sinklab
