#include "layers/normalizers/relu_normalizer.h"

#include <algorithm>
#include <cmath>

#include "layers/normalizers/block_lanes.h"

namespace sinklab {

// scores, probs: [visible]
template <class Real>
void ReluNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_forward(scores, probs, row.visible, [](Real s) { return std::max(s, Real(0)); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) probs[k] = std::max(scores[k], Real(0)) * inv;
}

// dscores += [s > 0] dprobs / c (row_sum: [s > 0] (dprobs - <a, dprobs>) / sum ReLU(s))
template <class Real>
void ReluNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                              const RowSpec& row, const Real*, Real*, Real*) const {
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_backward(
        scores, probs, dprobs, dscores, row.visible, [](Real s) { return std::max(s, Real(0)); },
        [](Real s) { return s > Real(0) ? Real(1) : Real(0); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k)
    if (scores[k] > Real(0)) dscores[k] += dprobs[k] * inv;
}

bool ReluNormalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  for (int k = 0; k < row.visible; ++k)
    if (std::fabs(scores[k]) < margin) return true;
  return false;
}

// Blocks of T <= 16 keys (positional divisors; row_sum rows go through the row calls): one causal row per AVX-512
// register, no per-row call, masked keys stored as zeros in the same write. scores, probs: [T, T]
void ReluNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                   const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      const int T = seq_len;
      if (T <= block_lanes::kLanes && divisor_ != RowDivisor::row_sum) {
        const __mmask16 row_lanes = first_lanes(T);
        for (int i = 0; i < T; ++i) {
          const __m512 inv = _mm512_set1_ps(1.0f / row_divisor<float>(divisor_, RowSpec{i, i + 1, T, head}));
          const __m512 s = _mm512_maskz_loadu_ps(first_lanes(i + 1), scores + i * T);  // masked keys read as 0
          _mm512_mask_storeu_ps(probs + i * T, row_lanes, _mm512_mul_ps(_mm512_max_ps(s, _mm512_setzero_ps()), inv));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// dscores += [s > 0] dprobs / c on the visible keys. scores, dprobs, dscores: [T, T]
void ReluNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                    int seq_len, int head, const float* head_params, float* dhead_params,
                                    float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      const int T = seq_len;
      if (T <= block_lanes::kLanes && divisor_ != RowDivisor::row_sum) {
        for (int i = 0; i < T; ++i) {
          const __m512 inv = _mm512_set1_ps(1.0f / row_divisor<float>(divisor_, RowSpec{i, i + 1, T, head}));
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 s = _mm512_maskz_loadu_ps(visible, scores + i * T);
          const __mmask16 active = _mm512_mask_cmp_ps_mask(visible, s, _mm512_setzero_ps(), _CMP_GT_OQ);
          const __m512 dp = _mm512_maskz_loadu_ps(active, dprobs + i * T);
          const __m512 ds = _mm512_maskz_loadu_ps(active, dscores + i * T);
          _mm512_mask_storeu_ps(dscores + i * T, active, _mm512_fmadd_ps(dp, inv, ds));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

NormalizerRegistration relu_normalizer_registration() {
  return {"relu", "ReLU(s) / c_i, c_i chosen by `divisor` (the paper's: max(i, 1))", {row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<ReluNormalizer>(row_divisor_of(o));
          }};
}

SINKLAB_ROW_MATH(ReluNormalizer)

}  // namespace sinklab
