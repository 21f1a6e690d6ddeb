#pragma once
// The row divisor c_i shared by the relu family (relu, relu2, sigmoid, softplus, elu1): row i's weights
// are f(s_k) / c_i.
// One option declaration, so every normalizer that takes it spells and documents it the same way.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/options/option_spec.h"
#include "layers/normalizers/normalizer.h"

namespace sinklab {

// visible_non_bos = max(i, 1) (the paper's: the non-BOS keys row i sees), visible = i + 1 (Guo et al.),
// seq_len = T (Wortsman et al.), none = 1, row_sum = sum_j f(s_j) over the visible keys (rows on the
// simplex; a row whose sum is 0 stays all 0).
enum class RowDivisor : uint8_t { visible_non_bos, visible, seq_len, none, row_sum };

// The `divisor` option; choices in enum order.
const OptionSpec& row_divisor_option();
RowDivisor row_divisor_of(const PluginOptions& options);

// The positional divisors, from the row's position (RowSpec::query), not from the length of the row
// handed over. row_sum is not positional: 1 here, see row_sum_forward / row_sum_backward.
template <class Real>
Real row_divisor(RowDivisor divisor, const RowSpec& row) {
  switch (divisor) {
    case RowDivisor::visible_non_bos: return static_cast<Real>(std::max(row.query, 1));
    case RowDivisor::visible: return static_cast<Real>(row.query + 1);
    case RowDivisor::seq_len: return static_cast<Real>(row.seq_len);
    case RowDivisor::none:
    case RowDivisor::row_sum: return Real(1);
  }
  return Real(1);
}

// The tiled form's divisor (layers/normalizers/tiled_form.h); none for row_sum, which needs the row.
inline std::optional<TiledForm::Divisor> tiled_divisor(RowDivisor divisor) {
  switch (divisor) {
    case RowDivisor::visible_non_bos: return TiledForm::Divisor::visible_non_bos;
    case RowDivisor::visible: return TiledForm::Divisor::visible;
    case RowDivisor::seq_len: return TiledForm::Divisor::seq_len;
    case RowDivisor::none: return TiledForm::Divisor::none;
    case RowDivisor::row_sum: return std::nullopt;
  }
  return std::nullopt;
}

// What the missing mass of a row means: row_sum rows lie on the simplex, the others are free.
inline RowMass row_mass_of(RowDivisor divisor) {
  return divisor == RowDivisor::row_sum ? RowMass::simplex : RowMass::unnormalized;
}

// a_k = f(s_k) / sum_j f(s_j) for a map f >= 0; a zero sum gives a zero row. scores, probs: [n]
template <class Real, class Map>
void row_sum_forward(const Real* scores, Real* probs, int n, Map f) {
  Real sum = 0;
  for (int k = 0; k < n; ++k) {
    probs[k] = f(scores[k]);
    sum += probs[k];
  }
  const Real inv = sum > Real(0) ? Real(1) / sum : Real(0);
  for (int k = 0; k < n; ++k) probs[k] *= inv;
}

// dscores_k += f'(s_k) / sum f * (dprobs_k - <a, dprobs>); zero for a zero-sum row (it stays 0 under
// any small change: every f(s_k) is 0 at a minimum of f). scores, probs, dprobs, dscores: [n]
template <class Real, class Map, class Derivative>
void row_sum_backward(const Real* scores, const Real* probs, const Real* dprobs, Real* dscores, int n, Map f,
                      Derivative df) {
  Real sum = 0, dot = 0;
  for (int k = 0; k < n; ++k) {
    sum += f(scores[k]);
    dot += probs[k] * dprobs[k];
  }
  if (!(sum > Real(0))) return;
  const Real inv = Real(1) / sum;
  for (int k = 0; k < n; ++k) dscores[k] += df(scores[k]) * inv * (dprobs[k] - dot);
}

}  // namespace sinklab
