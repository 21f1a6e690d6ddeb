#include "layers/normalizers/softpick_normalizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/fast_exp.h"

#include "layers/normalizers/block_lanes.h"

namespace sinklab {
namespace {

template <class Real>
int argmax(const Real* scores, int n) {
  return static_cast<int>(std::max_element(scores, scores + n) - scores);
}

}  // namespace

// scores, probs: [visible]
template <class Real>
void SoftpickNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const int n = row.visible;
  const Real m = scores[argmax(scores, n)];
  // Every u_k <= 0 when max s <= 0: the row is exactly 0 (and e^{-m} could overflow).
  if (!(m > Real(0))) {
    std::fill(probs, probs + n, Real(0));
    return;
  }
  const Real floor = row_exp(-m);
  Real sum_abs = 0;
  for (int k = 0; k < n; ++k) {
    const Real u = row_exp(scores[k] - m) - floor;
    probs[k] = std::max(u, Real(0));
    sum_abs += std::fabs(u);
  }
  const Real inv = Real(1) / (sum_abs + static_cast<Real>(eps_));
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

template <class Real>
void SoftpickNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                  const RowSpec& row, const Real*, Real*, Real*) const {
  const int n = row.visible;
  const int top = argmax(scores, n);
  const Real m = scores[top];
  // A zero row stays zero under any small change of its scores (all <= 0): no gradient.
  if (!(m > Real(0))) return;
  const Real floor = row_exp(-m);
  Real sum_abs = 0, dot = 0;
  for (int k = 0; k < n; ++k) {
    sum_abs += std::fabs(row_exp(scores[k] - m) - floor);
    dot += probs[k] * dprobs[k];
  }
  const Real inv = Real(1) / (sum_abs + static_cast<Real>(eps_));
  for (int k = 0; k < n; ++k) {
    const Real e = row_exp(scores[k] - m), u = e - floor;
    const Real own = u > Real(0) ? dprobs[k] : Real(0);
    const Real sign = u > Real(0) ? Real(1) : (u < Real(0) ? Real(-1) : Real(0));
    dscores[k] += e * (own - sign * dot) * inv;
  }
  dscores[top] -= static_cast<Real>(eps_) * dot * inv;
}

// A score crossing 0 (u = 0), or a near tie for the max (the eps term moves to the other key).
bool SoftpickNormalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  const int n = row.visible;
  const int top = argmax(scores, n);
  for (int k = 0; k < n; ++k) {
    if (std::fabs(scores[k]) < margin) return true;
    if (k != top && eps_ > 0 && scores[top] - scores[k] < margin) return true;
  }
  return false;
}

#if SINKLAB_BLOCK_LANES
namespace {

using block_lanes::first_lanes;
using block_lanes::kLanes;

// One exp loop over a [T, T] block (T <= 16): e [T, 16] = e^{s - m_i} on visible keys (0 on masked
// ones), floor [T] = e^{-m_i}, top [T] = the first argmax, positive [T] = (m_i > 0; else the row is 0).
struct SoftpickBlock {
  alignas(64) float e[kLanes * kLanes];
  float floor[kLanes];
  int top[kLanes];
  bool positive[kLanes];

  SINKLAB_BLOCK_LANES_TARGET
  SoftpickBlock(const float* scores, int T) {
    const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    for (int i = 0; i < T; ++i) {
      const __m512 x = _mm512_mask_loadu_ps(minus_inf, first_lanes(i + 1), scores + i * T);
      const float m = _mm512_reduce_max_ps(x);
      positive[i] = m > 0.0f;
      top[i] = static_cast<int>(__builtin_ctz(_mm512_cmp_ps_mask(x, _mm512_set1_ps(m), _CMP_EQ_OQ)));
      const float shift = positive[i] ? m : 0.0f;  // zero rows: any finite shift, never used
      _mm512_store_ps(e + i * kLanes, _mm512_sub_ps(x, _mm512_set1_ps(shift)));  // masked: -inf
      floor[i] = -shift;
    }
#pragma omp simd
    for (int k = 0; k < T * kLanes; ++k) e[k] = kernels::fast_exp(e[k]);  // exp(-inf) = 0
#pragma omp simd
    for (int i = 0; i < T; ++i) floor[i] = kernels::fast_exp(floor[i]);
  }
};

}  // namespace
#endif

// Blocks of T <= 16 keys (AVX-512): one exp loop over the block, then one causal row per register,
// masked keys stored as zeros in the same write. scores, probs: [T, T]
void SoftpickNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                       const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        const SoftpickBlock b(scores, T);
        const __m512 zero = _mm512_setzero_ps();
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 u = _mm512_maskz_sub_ps(visible, _mm512_load_ps(b.e + i * kLanes), _mm512_set1_ps(b.floor[i]));
          const float sum_abs = _mm512_reduce_add_ps(_mm512_abs_ps(u));
          const __m512 inv = _mm512_set1_ps(b.positive[i] ? 1.0f / (sum_abs + static_cast<float>(eps_)) : 0.0f);
          _mm512_mask_storeu_ps(probs + i * T, first_lanes(T), _mm512_mul_ps(_mm512_max_ps(u, zero), inv));
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
void SoftpickNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                        int seq_len, int head, const float* head_params, float* dhead_params,
                                        float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        const SoftpickBlock b(scores, T);
        const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
        for (int i = 0; i < T; ++i) {
          if (!b.positive[i]) continue;
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 e = _mm512_load_ps(b.e + i * kLanes);
          const __m512 u = _mm512_maskz_sub_ps(visible, e, _mm512_set1_ps(b.floor[i]));
          const float inv = 1.0f / (_mm512_reduce_add_ps(_mm512_abs_ps(u)) + static_cast<float>(eps_));
          const __m512 p = _mm512_maskz_loadu_ps(visible, probs + i * T);
          const __m512 dp = _mm512_maskz_loadu_ps(visible, dprobs + i * T);
          const float dot = _mm512_reduce_add_ps(_mm512_mul_ps(p, dp));
          const __mmask16 up = _mm512_mask_cmp_ps_mask(visible, u, zero, _CMP_GT_OQ);
          const __mmask16 down = _mm512_mask_cmp_ps_mask(visible, u, zero, _CMP_LT_OQ);
          const __m512 sign = _mm512_mask_mov_ps(_mm512_maskz_mov_ps(up, one), down, _mm512_set1_ps(-1.0f));
          const __m512 own = _mm512_maskz_mov_ps(up, dp);
          const __m512 g = _mm512_mul_ps(e, _mm512_fnmadd_ps(sign, _mm512_set1_ps(dot), own));  // e (own - sign dot)
          const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
          _mm512_mask_storeu_ps(dscores + i * T, visible, _mm512_fmadd_ps(g, _mm512_set1_ps(inv), ds));
          dscores[i * T + b.top[i]] -= static_cast<float>(eps_) * dot * inv;
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SoftpickNormalizer)

NormalizerRegistration softpick_normalizer_registration() {
  return {"softpick", "max(e^s - 1, 0) / (sum |e^s - 1| + eps), computed shifted by the row max",
          {OptionSpec::number("eps", 1e-8, Bound::closed(0.0, 1.0),
                              "added to the denominator sum |u| (u = e^{s - max s} - e^{-max s})")},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SoftpickNormalizer>(o.number("eps"));
          }};
}

}  // namespace sinklab
