#include "layers/attention_row_facts.h"

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

// v: [H, B, T, D]; w_o: [C, H*D]; value_norms, value_norms_v: [H, B, T]
void fill_value_norms(const float* v, const float* w_o, int64_t H, int64_t B, int64_t T, int64_t D, int64_t C,
                      float* value_norms, float* value_norms_v) {
#pragma omp parallel for schedule(static) if (H * B * T * D * C >= (1 << 20))
  for (int64_t row = 0; row < H * B * T; ++row) {
    const int64_t h = row / (B * T);
    const float* vk = v + row * D;
    double u_sq = 0.0, v_sq = 0.0;
    for (int64_t d = 0; d < D; ++d) v_sq += static_cast<double>(vk[d]) * vk[d];
    for (int64_t c = 0; c < C; ++c) {
      const float* w = w_o + c * H * D + h * D;
      double u = 0.0;
      for (int64_t d = 0; d < D; ++d) u += static_cast<double>(w[d]) * vk[d];
      u_sq += u * u;
    }
    value_norms[row] = static_cast<float>(std::sqrt(u_sq));
    value_norms_v[row] = static_cast<float>(std::sqrt(v_sq));
  }
}

}  // namespace sinklab
