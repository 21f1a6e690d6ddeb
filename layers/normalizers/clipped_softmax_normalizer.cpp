#include "layers/normalizers/clipped_softmax_normalizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/fast_exp.h"

#include "layers/normalizers/block_lanes.h"
#include <vector>

namespace sinklab {
namespace {

// p = softmax(s), shifted by the row max. scores, p: [n]
template <class Real>
void softmax_into(const Real* scores, Real* p, int n) {
  const Real m = *std::max_element(scores, scores + n);
  Real sum = 0;
  for (int k = 0; k < n; ++k) {
    p[k] = row_exp(scores[k] - m);
    sum += p[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) p[k] *= inv;
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void ClippedSoftmaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*,
                                       Real*) const {
  const Real stretch = static_cast<Real>(zeta_ - gamma_), gamma = static_cast<Real>(gamma_);
  softmax_into(scores, probs, row.visible);
  for (int k = 0; k < row.visible; ++k) probs[k] = std::clamp(stretch * probs[k] + gamma, Real(0), Real(1));
}

// scores, probs, dprobs, dscores, scratch: [visible]
template <class Real>
void ClippedSoftmaxNormalizer::backward(const Real* scores, const Real*, const Real* dprobs, Real* dscores,
                                        const RowSpec& row, const Real*, Real*, Real* scratch) const {
  const int n = row.visible;
  const Real stretch = static_cast<Real>(zeta_ - gamma_), gamma = static_cast<Real>(gamma_);
  Real* p = scratch;
  softmax_into(scores, p, n);
  auto passed = [&](int k) {  // dL/dpre_k: zero where the clip is active
    const Real pre = stretch * p[k] + gamma;
    return pre > Real(0) && pre < Real(1) ? stretch * dprobs[k] : Real(0);
  };
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += p[k] * passed(k);
  for (int k = 0; k < n; ++k) dscores[k] += p[k] * (passed(k) - dot);
}

// A pre-clip value within reach of 0 or 1: pre_k moves by at most (zeta - gamma) p_k per unit of
// score change (|dp_k / ds_j| <= p_k), so the distance to the boundary is measured in those units.
bool ClippedSoftmaxNormalizer::near_kink(const double* scores, const RowSpec& row, const double*,
                                         double margin) const {
  const int n = row.visible;
  std::vector<double> p(static_cast<size_t>(n));
  softmax_into(scores, p.data(), n);
  const double stretch = zeta_ - gamma_;
  for (int k = 0; k < n; ++k) {
    const double pre = stretch * p[static_cast<size_t>(k)] + gamma_,
                 reach = margin * stretch * p[static_cast<size_t>(k)];
    if (std::fabs(pre) < reach || std::fabs(pre - 1.0) < reach) return true;
  }
  return false;
}

#if SINKLAB_BLOCK_LANES
namespace {

using block_lanes::first_lanes;
using block_lanes::kLanes;

// softmax of every causal row of a [T, T] block (T <= 16) into p [T, 16] (masked lanes 0), with one
// exp loop over the whole block as softmax's block kernel.
SINKLAB_BLOCK_LANES_TARGET
void block_softmax(const float* scores, int T, float* p) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < T; ++i) {
    const __m512 x = _mm512_mask_loadu_ps(minus_inf, first_lanes(i + 1), scores + i * T);
    _mm512_store_ps(p + i * kLanes, _mm512_sub_ps(x, _mm512_set1_ps(_mm512_reduce_max_ps(x))));  // masked: -inf
  }
#pragma omp simd
  for (int k = 0; k < T * kLanes; ++k) p[k] = kernels::fast_exp(p[k]);  // exp(-inf) = 0
  for (int i = 0; i < T; ++i) {
    const __m512 e = _mm512_load_ps(p + i * kLanes);
    _mm512_store_ps(p + i * kLanes, _mm512_mul_ps(e, _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(e))));
  }
}

}  // namespace
#endif

// Blocks of T <= 16 keys (AVX-512). scores, probs: [T, T]
void ClippedSoftmaxNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                             const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        alignas(64) float p[kLanes * kLanes];
        block_softmax(scores, T, p);
        const __m512 stretch = _mm512_set1_ps(static_cast<float>(zeta_ - gamma_)),
                     gamma = _mm512_set1_ps(static_cast<float>(gamma_));
        const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
        for (int i = 0; i < T; ++i) {
          const __m512 pre = _mm512_fmadd_ps(stretch, _mm512_load_ps(p + i * kLanes), gamma);
          const __m512 a = _mm512_min_ps(one, _mm512_max_ps(zero, pre));
          _mm512_mask_storeu_ps(probs + i * T, first_lanes(T), _mm512_maskz_mov_ps(first_lanes(i + 1), a));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// As backward() on every visible key. scores, probs, dprobs, dscores: [T, T]
void ClippedSoftmaxNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs,
                                              float* dscores, int seq_len, int head, const float* head_params,
                                              float* dhead_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        alignas(64) float p_block[kLanes * kLanes];
        block_softmax(scores, T, p_block);
        const __m512 stretch = _mm512_set1_ps(static_cast<float>(zeta_ - gamma_)),
                     gamma = _mm512_set1_ps(static_cast<float>(gamma_));
        const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 p = _mm512_load_ps(p_block + i * kLanes);
          const __m512 pre = _mm512_fmadd_ps(stretch, p, gamma);
          const __mmask16 passing =
              _mm512_mask_cmp_ps_mask(_mm512_mask_cmp_ps_mask(visible, pre, zero, _CMP_GT_OQ), pre, one, _CMP_LT_OQ);
          const __m512 g = _mm512_maskz_mul_ps(passing, stretch, _mm512_maskz_loadu_ps(visible, dprobs + i * T));
          const __m512 dot = _mm512_set1_ps(_mm512_reduce_add_ps(_mm512_mul_ps(p, g)));
          const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
          _mm512_mask_storeu_ps(dscores + i * T, visible, _mm512_fmadd_ps(p, _mm512_sub_ps(g, dot), ds));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(ClippedSoftmaxNormalizer)

NormalizerRegistration clipped_softmax_normalizer_registration() {
  return {"clipped_softmax", "clip((zeta - gamma) softmax(s) + gamma, 0, 1) (Bondarenko et al.)",
          {OptionSpec::number("gamma", -0.03, Bound::closed(-1.0, 0.0), "stretch below 0: weights under "
                                                                          "-gamma / (zeta - gamma) become exactly 0"),
           OptionSpec::number("zeta", 1.0, Bound::closed(1.0, 2.0), "stretch above 1: weights over "
                                                                      "(1 - gamma) / (zeta - gamma) become exactly 1")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<ClippedSoftmaxNormalizer>(o.number("gamma"), o.number("zeta"));
          }};
}

}  // namespace sinklab
