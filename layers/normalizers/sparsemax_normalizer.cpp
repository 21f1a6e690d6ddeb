#include "layers/normalizers/sparsemax_normalizer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace sinklab {
namespace {

// The threshold tau of sparsemax: sort descending, the support size k* is the largest k with
// 1 + k z_(k) > sum_{r <= k} z_(r), and tau = (sum_{r <= k*} z_(r) - 1) / k*.
// scores: [n]; sorted: [n] scratch
template <class Real>
Real sparsemax_threshold(const Real* scores, int n, Real* sorted) {
  std::copy(scores, scores + n, sorted);
  std::sort(sorted, sorted + n, std::greater<Real>());
  Real cumulative = 0, support_sum = sorted[0];
  int support = 1;
  for (int k = 1; k <= n; ++k) {
    cumulative += sorted[k - 1];
    if (Real(1) + Real(k) * sorted[k - 1] > cumulative) {
      support = k;
      support_sum = cumulative;
    }
  }
  return (support_sum - Real(1)) / Real(support);
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
  std::vector<double> sorted(static_cast<size_t>(row.visible));
  const double tau = sparsemax_threshold(scores, row.visible, sorted.data());
  for (int k = 0; k < row.visible; ++k)
    if (std::fabs(scores[k] - tau) < margin) return true;
  return false;
}

SINKLAB_ROW_MATH(SparsemaxNormalizer)

NormalizerRegistration sparsemax_normalizer_registration() {
  return {"sparsemax", "sparsemax: max(s - tau, 0) with tau so that the row sums to 1 (exact zeros)", {},
          [](const PluginOptions&) -> std::unique_ptr<Normalizer> { return std::make_unique<SparsemaxNormalizer>(); }};
}

}  // namespace sinklab
