#include "layers/normalizers/sigmoid_normalizer.h"

#include <cmath>

#include "layers/normalizers/block_lanes.h"

namespace sinklab {
namespace {

// sigma(x) from e = exp(-|x|) <= 1: no overflow for any x.
template <class Real>
Real sigmoid_from(Real x, Real e) {
  return x >= Real(0) ? Real(1) / (Real(1) + e) : e / (Real(1) + e);
}

template <class Real>
Real sigmoid(Real x) {
  return sigmoid_from(x, row_exp(-std::fabs(x)));
}

}  // namespace

template <class Real>
Real SigmoidNormalizer::bias_for(int seq_len) const {
  return bias_ == SigmoidBias::neg_log_seq_len ? -std::log(static_cast<Real>(seq_len)) : Real(0);
}

// scores, probs: [visible]
template <class Real>
void SigmoidNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*, Real*) const {
  const Real b = bias_for<Real>(row.seq_len);
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_forward(scores, probs, row.visible, [b](Real s) { return sigmoid(s + b); });
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) probs[k] = sigmoid(scores[k] + b) * inv;
}

// dscores += sigma (1 - sigma) dprobs / c (row_sum: sigma (1 - sigma) (dprobs - <a, dprobs>) / sum sigma)
template <class Real>
void SigmoidNormalizer::backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores,
                                 const RowSpec& row, const Real*, Real*, Real*) const {
  const Real b = bias_for<Real>(row.seq_len);
  auto derivative = [b](Real s) {
    const Real sig = sigmoid(s + b);
    return sig * (Real(1) - sig);
  };
  if (divisor_ == RowDivisor::row_sum) {
    row_sum_backward(scores, probs, dprobs, dscores, row.visible, [b](Real s) { return sigmoid(s + b); }, derivative);
    return;
  }
  const Real inv = Real(1) / row_divisor<Real>(divisor_, row);
  for (int k = 0; k < row.visible; ++k) dscores[k] += derivative(scores[k]) * dprobs[k] * inv;
}

#if SINKLAB_BLOCK_LANES
namespace {

using block_lanes::first_lanes;
using block_lanes::kLanes;

// sigma(s + b) of every visible key of a [T, T] block (T <= 16) into sig [T, 16]; masked lanes hold
// sigma(b), which callers mask out. Two passes so that one exp loop covers the whole block.
SINKLAB_BLOCK_LANES_TARGET
void block_sigmoids(const float* scores, int T, float b, float* sig) {
  alignas(64) float x[kLanes * kLanes];
  const __m512 bias = _mm512_set1_ps(b);
  const __m512 sign_off = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  for (int i = 0; i < T; ++i) {
    const __m512 xi = _mm512_add_ps(_mm512_maskz_loadu_ps(first_lanes(i + 1), scores + i * T), bias);
    _mm512_store_ps(x + i * kLanes, xi);
    _mm512_store_ps(sig + i * kLanes, _mm512_sub_ps(_mm512_setzero_ps(), _mm512_and_ps(xi, sign_off)));  // -|x|
  }
#pragma omp simd
  for (int k = 0; k < T * kLanes; ++k) sig[k] = kernels::fast_exp(sig[k]);
#pragma omp simd
  for (int k = 0; k < T * kLanes; ++k) sig[k] = sigmoid_from(x[k], sig[k]);
}

}  // namespace
#endif

// Blocks of T <= 16 keys (AVX-512): the sigmoids of the whole block in one vectorized pass, then
// one causal row per register, masked keys stored as zeros in the same write. scores, probs: [T, T]
void SigmoidNormalizer::forward_block(const float* scores, float* probs, int seq_len, int head,
                                      const float* head_params, float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        alignas(64) float sig[kLanes * kLanes];
        block_sigmoids(scores, T, bias_for<float>(T), sig);
        for (int i = 0; i < T; ++i) {
          const __m512 s = _mm512_maskz_load_ps(first_lanes(i + 1), sig + i * kLanes);  // masked keys: 0
          const float inv = divisor_ == RowDivisor::row_sum
                                ? 1.0f / _mm512_reduce_add_ps(s)  // sigma > 0: the sum is never 0
                                : 1.0f / row_divisor<float>(divisor_, RowSpec{i, i + 1, T, head});
          _mm512_mask_storeu_ps(probs + i * T, first_lanes(T), _mm512_mul_ps(s, _mm512_set1_ps(inv)));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::forward_block(scores, probs, seq_len, head, head_params, scratch);
}

// dscores += sigma (1 - sigma) / c (dprobs - [row_sum] <a, dprobs>) on the visible keys.
// scores, probs, dprobs, dscores: [T, T]
void SigmoidNormalizer::backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores,
                                       int seq_len, int head, const float* head_params, float* dhead_params,
                                       float* scratch) const {
#if SINKLAB_BLOCK_LANES
  if (block_lanes::available() && [&]() SINKLAB_BLOCK_LANES_TARGET {
      const int T = seq_len;
      if (T <= kLanes) {
        alignas(64) float sig[kLanes * kLanes];
        block_sigmoids(scores, T, bias_for<float>(T), sig);
        const __m512 one = _mm512_set1_ps(1.0f);
        for (int i = 0; i < T; ++i) {
          const __mmask16 visible = first_lanes(i + 1);
          const __m512 s = _mm512_maskz_load_ps(visible, sig + i * kLanes);
          const __m512 dp = _mm512_maskz_loadu_ps(visible, dprobs + i * T);
          __m512 centered = dp;
          float inv;
          if (divisor_ == RowDivisor::row_sum) {
            const __m512 p = _mm512_maskz_loadu_ps(visible, probs + i * T);
            centered = _mm512_sub_ps(dp, _mm512_set1_ps(_mm512_reduce_add_ps(_mm512_mul_ps(p, dp))));
            inv = 1.0f / _mm512_reduce_add_ps(s);
          } else {
            inv = 1.0f / row_divisor<float>(divisor_, RowSpec{i, i + 1, T, head});
          }
          const __m512 slope = _mm512_mul_ps(_mm512_mul_ps(s, _mm512_sub_ps(one, s)), _mm512_set1_ps(inv));
          const __m512 ds = _mm512_maskz_loadu_ps(visible, dscores + i * T);
          _mm512_mask_storeu_ps(dscores + i * T, visible, _mm512_fmadd_ps(slope, centered, ds));
        }
        return true;
      }
      return false;
    }())
    return;
#endif
  Normalizer::backward_block(scores, probs, dprobs, dscores, seq_len, head, head_params, dhead_params, scratch);
}

SINKLAB_ROW_MATH(SigmoidNormalizer)

NormalizerRegistration sigmoid_normalizer_registration() {
  return {"sigmoid", "sigma(s + b) / c_i: sigmoid attention, c_i chosen by `divisor` as for relu",
          {OptionSpec::choice("bias", {"zero", "neg_log_seq_len"}, "zero",
                              "the logit bias b: zero, or neg_log_seq_len = -ln L (L = sequence length)"),
           row_divisor_option()},
          [](const PluginOptions& o) -> std::unique_ptr<Normalizer> {
            return std::make_unique<SigmoidNormalizer>(static_cast<SigmoidBias>(o.choice_index("bias")),
                                                       row_divisor_of(o));
          }};
}

}  // namespace sinklab
