#include "layers/normalizers/normalizer.h"

#include <algorithm>
#include <limits>

namespace sinklab {

// scores, probs: [T, T]
void Normalizer::forward_block(const float* scores, float* probs, int seq_len, int head, const float* head_params,
                               float* scratch) const {
  const int T = seq_len;
  for (int i = 0; i < T; ++i) {
    const RowSpec spec{i, i + 1, T, head};
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
    const RowSpec spec{i, i + 1, T, head};
    backward_row(scores + i * T, probs + i * T, dprobs + i * T, dscores + i * T, spec, head_params, dhead_params,
                 scratch);
  }
}

float Normalizer::virtual_mass(const float*, const float* probs, const RowSpec& row, const float*) const {
  switch (row_mass_kind()) {
    case RowMass::simplex: return 0.0f;
    case RowMass::deficit: {
      float sum = 0.0f;
      for (int k = 0; k < row.visible; ++k) sum += probs[k];
      return 1.0f - sum;
    }
    case RowMass::virtual_slot:  // a normalizer with a slot overrides this
    case RowMass::unnormalized: return std::numeric_limits<float>::quiet_NaN();
  }
  return std::numeric_limits<float>::quiet_NaN();
}

}  // namespace sinklab
