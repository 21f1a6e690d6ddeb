#include "layers/normalizers/ssmax_normalizer.h"

#include "core/kernels/fast_exp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "layers/normalizers/block_lanes.h"

namespace sinklab {
namespace {

template <class Real>
Real log_keys(const RowSpec& row) {
  return std::log(static_cast<Real>(row.query + 1));
}

}  // namespace

// softmax(lambda s), lambda = s_h ln(n_i), shifted by the row max of lambda s. scores, probs: [visible]
template <class Real>
void SsmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real* params, Real*) const {
  const int n = row.visible;
  const Real lambda = params[0] * log_keys<Real>(row);
  Real m = lambda * scores[0];
  for (int k = 1; k < n; ++k) m = std::max(m, lambda * scores[k]);
  Real sum = 0;
  for (int k = 0; k < n; ++k) {
    probs[k] = row_exp(lambda * scores[k] - m);
    sum += probs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

template <class Real>
void SsmaxNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                               const RowSpec& row, const Real* params, Real* dparams, Real*) const {
  const int n = row.visible;
  const Real log_n = log_keys<Real>(row), lambda = params[0] * log_n;
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
  Real dlambda = 0;
  for (int k = 0; k < n; ++k) {
    const Real dz = probs[k] * (dprobs[k] - dot);
    dscores[k] += lambda * dz;
    dlambda += scores[k] * dz;
  }
  if (dparams) dparams[0] += log_n * dlambda;
}

// Blocks of T <= 16 keys (AVX-512): row i's logits scaled by lambda_i = s_h ln(i + 1), one exp loop
// over the whole block, masked keys stored as zeros in the same write. scores, probs: [T, T]
void SsmaxNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                    const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      using block_lanes::kLanes;
      const int T = seq_len;
      if (T <= kLanes) {
        const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
        alignas(64) float shifted[kLanes * kLanes];
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 lambda = _mm512_set1_ps(head_params[0] * log_keys<float>(RowSpec{i, i + 1, T, head}));
          const __m512 z =
              _mm512_mask_mul_ps(minus_inf, visible, _mm512_maskz_loadu_ps(visible, scores + i * T), lambda);
          _mm512_store_ps(shifted + i * kLanes,
                          _mm512_sub_ps(z, _mm512_set1_ps(_mm512_reduce_max_ps(z))));  // masked: -inf
        }
    #pragma omp simd
        for (int k = 0; k < T * kLanes; ++k) shifted[k] = kernels::fast_exp(shifted[k]);  // exp(-inf) = 0
        for (int i = 0; i < T; ++i) {
          const __m512 e = _mm512_load_ps(shifted + i * kLanes);
          _mm512_mask_storeu_ps(probs + i * T, first_lanes(T),
                                _mm512_mul_ps(e, _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(e))));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// dz = a (dprobs - <a, dprobs>); dscores += lambda_i dz on the visible keys; ds_h += sum_i ln(i + 1) <s, dz>.
// scores, probs, dprobs, dscores: [T, T]
void SsmaxNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                     int seq_len, int head, const float* head_params, float* dhead_params,
                                     float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      using block_lanes::first_lanes;
      const int T = seq_len;
      if (T <= block_lanes::kLanes) {
        float dscale = 0.0f;
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const float log_n = log_keys<float>(RowSpec{i, i + 1, T, head});
          const __m512 p = _mm512_maskz_loadu_ps(visible, probs + i * T);
          const __m512 dp = _mm512_maskz_loadu_ps(visible, dprobs + i * T);
          const __m512 dz =
              _mm512_mul_ps(p, _mm512_sub_ps(dp, _mm512_set1_ps(_mm512_reduce_add_ps(_mm512_mul_ps(p, dp)))));
          const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
          _mm512_mask_storeu_ps(dscores + i * T, visible,
                                _mm512_fmadd_ps(_mm512_set1_ps(head_params[0] * log_n), dz, ds));
          const __m512 s = _mm512_maskz_loadu_ps(visible, scores + i * T);
          dscale += log_n * _mm512_reduce_add_ps(_mm512_mul_ps(s, dz));
        }
        if (dhead_params) dhead_params[0] += dscale;
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SsmaxNormalizer)

NormalizerRegistration ssmax_normalizer_registration() {
  return {"ssmax", "Scalable-Softmax: softmax(s_h ln(n_i) s), n_i = visible keys, s_h learned per head",
          {OptionSpec::number("init_scale", 0.43, Bound::closed(-100.0, 100.0),
                              "initial s_h of every head (parameter <attn>.ssmax_scale; 0.43 is the public "
                              "implementations' default)")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SsmaxNormalizer>(o.number("init_scale"));
          },
          {.softmax_of_scaled_logits = false, .temperature_option = "", .lipschitz = LogitLipschitz::log_keys_softmax}};
}

}  // namespace sinklab
