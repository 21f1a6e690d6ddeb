#include "layers/normalizers/slot_softmax.h"

#include <limits>

#include "core/kernels/fast_exp.h"

#include "layers/normalizers/block_lanes.h"

namespace sinklab {

#if SINKLAB_BLOCK_LANES
namespace {

using block_lanes::first_lanes;
using block_lanes::kLanes;

// e^{s - m_i} of every row of a [T, T] block into e [T, 16] (masked lanes 0) and the slot terms
// w e^{c - m_i} into slot [T]; one exp loop over the whole block, as softmax's block kernel.
SINKLAB_BLOCK_LANES_TARGET
void block_exps(const float* scores, int T, float c, float w, float* e, float* slot) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < T; ++i) {
    const __m512 x = _mm512_mask_loadu_ps(minus_inf, first_lanes(i + 1), scores + i * T);
    const float m = std::max(c, _mm512_reduce_max_ps(x));
    _mm512_store_ps(e + i * kLanes, _mm512_sub_ps(x, _mm512_set1_ps(m)));  // masked: -inf
    slot[i] = c - m;
  }
#pragma omp simd
  for (int k = 0; k < T * kLanes; ++k) e[k] = kernels::fast_exp(e[k]);  // exp(-inf) = 0
#pragma omp simd
  for (int i = 0; i < T; ++i) slot[i] = w * kernels::fast_exp(slot[i]);
}

// scores, probs: [T, T]; T <= kLanes
SINKLAB_BLOCK_LANES_TARGET
void forward_block_lanes(const float* scores, float* probs, int T, float c, float w) {
  alignas(64) float e[kLanes * kLanes];
  float slot[kLanes];
  block_exps(scores, T, c, w, e, slot);
  for (int i = 0; i < T; ++i) {
    const __m512 ei = _mm512_load_ps(e + i * kLanes);
    const __m512 inv_sum = _mm512_set1_ps(1.0f / (slot[i] + _mm512_reduce_add_ps(ei)));
    _mm512_mask_storeu_ps(probs + i * T, first_lanes(T), _mm512_mul_ps(ei, inv_sum));
  }
}

// scores, probs, dprobs, dscores: [T, T]; T <= kLanes
SINKLAB_BLOCK_LANES_TARGET
void backward_block_lanes(const float* scores, const float* probs, const float* dprobs, float* dscores, int T, float c,
                          float w, float* dslot_logit) {
  alignas(64) float e[kLanes * kLanes];
  float slot[kLanes];
  if (dslot_logit) block_exps(scores, T, c, w, e, slot);
  float dc = 0.0f;
  for (int i = 0; i < T; ++i) {
    const __mmask16 visible = first_lanes(i + 1);
    const __m512 p = _mm512_maskz_loadu_ps(visible, probs + i * T);
    const __m512 dp = _mm512_maskz_loadu_ps(visible, dprobs + i * T);
    const float dot = _mm512_reduce_add_ps(_mm512_mul_ps(p, dp));
    const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
    _mm512_mask_storeu_ps(dscores + i * T, visible,
                          _mm512_fmadd_ps(p, _mm512_sub_ps(dp, _mm512_set1_ps(dot)), ds));
    if (dslot_logit) {
      const float v = slot[i] / (slot[i] + _mm512_reduce_add_ps(_mm512_load_ps(e + i * kLanes)));
      dc -= v * dot;
    }
  }
  if (dslot_logit) *dslot_logit += dc;
}

}  // namespace

#endif

bool slot_softmax_forward_block(const float* scores, float* probs, int T, float c, float w) {
#if SINKLAB_BLOCK_LANES
  if (T > kLanes || !block_lanes::available()) return false;
  forward_block_lanes(scores, probs, T, c, w);
  return true;
#else
  (void)scores, (void)probs, (void)T, (void)c, (void)w;
  return false;
#endif
}

bool slot_softmax_backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int T,
                                 float c, float w, float* dslot_logit) {
#if SINKLAB_BLOCK_LANES
  if (T > kLanes || !block_lanes::available()) return false;
  backward_block_lanes(scores, probs, dprobs, dscores, T, c, w, dslot_logit);
  return true;
#else
  (void)scores, (void)probs, (void)dprobs, (void)dscores, (void)T, (void)c, (void)w, (void)dslot_logit;
  return false;
#endif
}

}  // namespace sinklab
