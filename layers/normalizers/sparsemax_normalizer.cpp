#include "layers/normalizers/sparsemax_normalizer.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sinklab {
namespace {

// The threshold tau of sparsemax, the tau with sum_k max(z_k - tau, 0) = 1. tau >= max z - 1 (the top
// score alone would give max z - 1), so only scores above max z - 1 can carry weight; among those,
// Michelot's projection: tau = (sum_S z - 1) / |S|, drop every z <= tau from S, repeat until none drops
// (tau only grows, and the top score always stays). Exact like sorting, but O(n) per pass and a few
// passes instead of an O(n log n) sort: rows of 1024 keys (bench/attention_bench).
// scores: [n]; candidates: [n] scratch
template <class Real>
Real sparsemax_threshold(const Real* scores, int n, Real* candidates) {
  const Real top = *std::max_element(scores, scores + n);
  int m = 0;
  for (int k = 0; k < n; ++k)
    if (scores[k] > top - Real(1)) candidates[m++] = scores[k];
  for (;;) {
    Real sum = 0;
    for (int i = 0; i < m; ++i) sum += candidates[i];
    const Real tau = (sum - Real(1)) / Real(m);
    int kept = 0;
    for (int i = 0; i < m; ++i)
      if (candidates[i] > tau) candidates[kept++] = candidates[i];
    if (kept == m) return tau;
    m = kept;
  }
}

}  // namespace

// scores, probs: [visible]; scratch: [visible]
template <class Real>
void SparsemaxNormalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*,
                                  Real* scratch) const {
  const int n = row.visible;
  const Real tau = sparsemax_threshold(scores, n, scratch);
  for (int k = 0; k < n; ++k) probs[k] = std::max(scores[k] - tau, Real(0));
}

// On the support S (a_k > 0): dscores_k += da_k - mean_S da; off the support the weights are
// constant 0 and get nothing.
template <class Real>
void SparsemaxNormalizer::backward(const Real*, const Real* probs, const Real* dprobs, Real* dscores,
                                   const RowSpec& row, const Real*, Real*, Real*) const {
  const int n = row.visible;
  Real sum = 0;
  int support = 0;
  for (int k = 0; k < n; ++k)
    if (probs[k] > Real(0)) {
      sum += dprobs[k];
      ++support;
    }
  const Real mean = sum / Real(std::max(support, 1));
  for (int k = 0; k < n; ++k)
    if (probs[k] > Real(0)) dscores[k] += dprobs[k] - mean;
}

bool SparsemaxNormalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  std::vector<double> candidates(static_cast<size_t>(row.visible));
  const double tau = sparsemax_threshold(scores, row.visible, candidates.data());
  for (int k = 0; k < row.visible; ++k)
    if (std::fabs(scores[k] - tau) < margin) return true;
  return false;
}

SINKLAB_ROW_MATH(SparsemaxNormalizer)

NormalizerRegistration sparsemax_normalizer_registration() {
  return {"sparsemax", "sparsemax: max(s - tau, 0) with tau so that the row sums to 1 (exact zeros)", {},
          [](const PluginOptions&) -> std::unique_ptr<Normalizer> { return std::make_unique<SparsemaxNormalizer>(); },
          {.softmax_of_scaled_logits = false, .temperature_option = "", .lipschitz = LogitLipschitz::projection}};
}

}  // namespace sinklab
