#include "layers/cached_attention.h"

#include <algorithm>
#include <cmath>

namespace sinklab {

void cached_softmax_attention(const CachedAttentionShape& s, const float* q, const float* k, const float* v,
                              float* scratch, float* out) {
  const int64_t H = s.heads, D = s.head_dim, N = s.keys, group = s.heads / s.kv_heads;
#pragma omp parallel for schedule(static) if (H * s.rows * N * D >= (1 << 15))
  for (int64_t h = 0; h < H; ++h) {
    const float* kh = k + (h / group) * N * D;
    const float* vh = v + (h / group) * N * D;
    float* w = scratch + h * N;
    for (int64_t i = 0; i < s.rows; ++i) {
      const int64_t position = s.first + i;
      const int64_t last = std::min(position, N - 1);
      const int64_t lo = s.window > 0 ? std::max<int64_t>(0, position - s.window + 1) : 0;
      const float* qi = q + (h * s.rows + i) * D;
      float top = -INFINITY;
      for (int64_t j = lo; j <= last; ++j) {
        float dot = 0.0f;
        for (int64_t d = 0; d < D; ++d) dot += qi[d] * kh[j * D + d];
        w[j] = s.scale * dot;
        top = std::max(top, w[j]);
      }
      double sum = 0.0;
      for (int64_t j = lo; j <= last; ++j) {
        w[j] = std::exp(w[j] - top);
        sum += w[j];
      }
      const float inv = static_cast<float>(1.0 / sum);
      float* oi = out + (h * s.rows + i) * D;
      std::fill(oi, oi + D, 0.0f);
      for (int64_t j = lo; j <= last; ++j) {
        const float a = w[j] * inv;
        for (int64_t d = 0; d < D; ++d) oi[d] += a * vh[j * D + d];
      }
    }
  }
}

}  // namespace sinklab
