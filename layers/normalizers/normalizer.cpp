#include "layers/normalizers/normalizer.h"

#include <algorithm>

namespace sinklab {

// scores, probs: [T, T]
void Normalizer::forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                               float* scratch) const {
  const int T = seq_len;
  for (int i = 0; i < T; ++i) {
    const RowSpec spec{i, i + 1, T, head, nullptr};
    forward_row(scores + i * T, probs + i * T, spec, head_params, scratch);
    std::fill(probs + i * T + i + 1, probs + (i + 1) * T, 0.0f);
  }
}

// scores, probs, dprobs, dscores: [T, T]
void Normalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                int seq_len, int head, const float* head_params, float* dhead_params,
                                float* scratch) const {
  const int T = seq_len;
  for (int i = 0; i < T; ++i) {
    const RowSpec spec{i, i + 1, T, head, nullptr};
    backward_row(scores + i * T, probs + i * T, dprobs + i * T, dscores + i * T, spec, head_params, dhead_params,
                 scratch);
  }
}

}  // namespace sinklab
