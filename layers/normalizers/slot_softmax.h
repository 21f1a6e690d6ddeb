#pragma once
// Softmax with one extra slot that is not a key, shared by softmax_n (slot n e^0) and sink_logit
// (slot e^{S_h}): with slot logit c and slot weight w,
//   a_k = e^{s_k - m} / (w e^{c - m} + sum_j e^{s_j - m}),  m = max(c, max_k s_k),
// and the slot keeps v = w e^{c - m} / Z, the row's virtual mass. Shifting by m keeps every exponent
// <= 0 (w is a finite option value). The VJP is softmax's, a_k (da_k - <a, da>); da/dc = -v a.
#include <algorithm>

#include "layers/normalizers/row_normalizer.h"

namespace sinklab {

// The shift m of a row: max(c, max s). scores: [n]
template <class Real>
Real slot_softmax_shift(const Real* scores, int n, Real c) {
  Real m = c;
  for (int k = 0; k < n; ++k) m = std::max(m, scores[k]);
  return m;
}

// probs[0..n) from scores[0..n); returns the slot's share v.
template <class Real>
Real slot_softmax_forward(const Real* scores, Real* probs, int n, Real c, Real w) {
  const Real m = slot_softmax_shift(scores, n, c);
  const Real slot = w * row_exp(c - m);
  Real sum = slot;
  for (int k = 0; k < n; ++k) {
    probs[k] = row_exp(scores[k] - m);
    sum += probs[k];
  }
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) probs[k] *= inv;
  return slot * inv;
}

// The slot's share v of a row, from its scores (exact also where v is far below 1 - sum a's
// round-off).
template <class Real>
Real slot_softmax_share(const Real* scores, int n, Real c, Real w) {
  const Real m = slot_softmax_shift(scores, n, c);
  const Real slot = w * row_exp(c - m);
  Real sum = slot;
  for (int k = 0; k < n; ++k) sum += row_exp(scores[k] - m);
  return slot / sum;
}

// dscores += a (dprobs - <a, dprobs>); returns <a, dprobs>. probs, dprobs, dscores: [n]
template <class Real>
Real slot_softmax_backward(const Real* probs, const Real* dprobs, Real* dscores, int n) {
  Real dot = 0;
  for (int k = 0; k < n; ++k) dot += probs[k] * dprobs[k];
  for (int k = 0; k < n; ++k) dscores[k] += probs[k] * (dprobs[k] - dot);
  return dot;
}

// Whole [T, T] causal blocks for T <= 16 (AVX-512 builds; false elsewhere or for longer rows, then
// the caller falls back to the row calls). Same math as above for every row i (keys 0..i), masked
// keys written as 0 / left untouched. backward adds -v_i <a_i, da_i> over the rows into *dslot_logit
// when it is not null.
bool slot_softmax_forward_block(const float* scores, float* probs, int T, float c, float w);
bool slot_softmax_backward_block(const float* scores, const float* probs, const float* dprobs, float* dscores, int T,
                                 float c, float w, float* dslot_logit);

}  // namespace sinklab
