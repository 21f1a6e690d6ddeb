#include "layers/normalizers/softmax_normalizer.h"

#include "core/kernels/fast_exp.h"

#include "layers/normalizers/block_lanes.h"
#include "layers/normalizers/softmax_short_row.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace sinklab {

SoftmaxNormalizer::SoftmaxNormalizer(double temperature) : inv_temperature_(1.0 / temperature) {
  if (!(temperature > 0.0)) throw std::invalid_argument("softmax: temperature must be > 0");
}

// scores, probs: [visible]
template <class Real>
void SoftmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const int n = row.visible;
  const Real inv_t = static_cast<Real>(inv_temperature_);
  if constexpr (std::is_same_v<Real, float>) {
    if (n <= kSoftmaxShortRow) {  // compiled per ISA level
      softmax_short_row(scores, probs, n, inv_t);
      return;
    }
  }
  Real m = scores[0];
  for (int k = 1; k < n; ++k) m = std::max(m, scores[k]);
  Real sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int k = 0; k < n; ++k) {
    probs[k] = row_exp((scores[k] - m) * inv_t);
    sum += probs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

// dscores += (p * (dp - <p, dp>)) / T
template <class Real>
void SoftmaxNormalizer::backward(const Real*, const Real* probs, const Real* dprobs, Real* dscores, const RowSpec& row,
                                 const Real*, Real*, Real*) const {
  const int n = row.visible;
  const Real inv_t = static_cast<Real>(inv_temperature_);
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
  for (int k = 0; k < n; ++k) dscores[k] += inv_t * probs[k] * (dprobs[k] - dot);
}

// Blocks of T <= 16 keys (AVX-512): one causal row per register, no per-row call, masked keys stored
// as zeros in the same write. Row i's visible keys are lanes 0..i. scores, probs: [T, T]
void SoftmaxNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                      const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      using block_lanes::kLanes;
      const int T = seq_len;
      if (T <= kLanes) {
        const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
        const __m512 inv_t = _mm512_set1_ps(static_cast<float>(inv_temperature_));
        const __mmask16 row_lanes = first_lanes(T);
        // Three passes, so that no row waits on another's latency chain: shifted logits of every row,
        // one exp over the whole block (16 full registers), then each row's sum and scale.
        alignas(64) float shifted[kLanes * kLanes];
        for (int i = 0; i < T; ++i) {
          const __m512 x = _mm512_mask_loadu_ps(minus_inf, first_lanes(i + 1), scores + i * T);
          const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(x));
          _mm512_store_ps(shifted + i * kLanes, _mm512_mul_ps(_mm512_sub_ps(x, m), inv_t));  // masked: -inf
        }
    #pragma omp simd
        for (int k = 0; k < T * kLanes; ++k) shifted[k] = kernels::fast_exp(shifted[k]);  // exp(-inf) = 0
        for (int i = 0; i < T; ++i) {
          const __m512 e = _mm512_load_ps(shifted + i * kLanes);
          const __m512 inv_sum = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(e));
          _mm512_mask_storeu_ps(probs + i * T, row_lanes, _mm512_mul_ps(e, inv_sum));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// dscores += (p * (dp - <p, dp>)) / T on the visible keys; scores, probs, dprobs, dscores: [T, T]
void SoftmaxNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                       int seq_len, int head, const float* head_params, float* dhead_params,
                                       float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      const int T = seq_len;
      if (T <= block_lanes::kLanes) {
        const __m512 inv_t = _mm512_set1_ps(static_cast<float>(inv_temperature_));
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 p = _mm512_maskz_loadu_ps(visible, probs + i * T);
          const __m512 dp = _mm512_maskz_loadu_ps(visible, dprobs + i * T);
          const __m512 dot = _mm512_set1_ps(_mm512_reduce_add_ps(_mm512_mul_ps(p, dp)));
          const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
          const __m512 update = _mm512_mul_ps(inv_t, _mm512_mul_ps(p, _mm512_sub_ps(dp, dot)));
          _mm512_mask_storeu_ps(dscores + i * T, visible, _mm512_add_ps(ds, update));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SoftmaxNormalizer)

NormalizerRegistration softmax_normalizer_registration() {
  // 1 / temperature must be a normal float32 (logits are scaled by it in float32), with room left for
  // large logits; 1e-20 already makes the softmax an argmax.
  constexpr double kMinTemperature = 1e-20, kMaxTemperature = 1e20;
  return {
      "softmax",
      "softmax(s / temperature) over the visible keys",
      {OptionSpec::number("temperature", 1.0, Bound::closed(kMinTemperature, kMaxTemperature),
                          "softmax of logits / temperature")},
      [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
        return std::make_unique<SoftmaxNormalizer>(o.number("temperature"));
      },
      {.softmax_of_scaled_logits = true, .temperature_option = "temperature", .lipschitz = LogitLipschitz::softmax}};
}

}  // namespace sinklab
