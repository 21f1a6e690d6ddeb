#include "layers/normalizers/entmax15_normalizer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace sinklab {
namespace {

// z = (s - max s) / 2 into z, and the threshold tau of 1.5-entmax: with mu_k, q_k the mean and mean
// square of the k largest z, tau_k = mu_k - sqrt(max(0, (1 - k (q_k - mu_k^2)) / k)); the support
// size is #{k : tau_k <= z_(k)} and tau = tau_size.
// scores, z: [n]; sorted: [n] scratch
template <class Real>
Real entmax15_threshold(const Real* scores, int n, Real* z, Real* sorted) {
  Real m = scores[0];
  for (int k = 1; k < n; ++k) m = std::max(m, scores[k]);
  for (int k = 0; k < n; ++k) z[k] = (scores[k] - m) / Real(2);
  std::copy(z, z + n, sorted);
  std::sort(sorted, sorted + n, std::greater<Real>());
  // tau_k of the k largest z, from their sum and sum of squares.
  const auto tau_of = [](Real sum, Real sum_sq, int k) {
    const Real mean = sum / Real(k), mean_sq = sum_sq / Real(k);
    return mean - std::sqrt(std::max((Real(1) - Real(k) * (mean_sq - mean * mean)) / Real(k), Real(0)));
  };
  Real sum = 0, sum_sq = 0;
  int size = 0;
  for (int k = 1; k <= n; ++k) {
    sum += sorted[k - 1];
    sum_sq += sorted[k - 1] * sorted[k - 1];
    if (tau_of(sum, sum_sq, k) <= sorted[k - 1]) ++size;
  }
  sum = 0;
  sum_sq = 0;
  for (int k = 0; k < size; ++k) {
    sum += sorted[k];
    sum_sq += sorted[k] * sorted[k];
  }
  const Real tau = tau_of(sum, sum_sq, size);
  return tau;
}

}  // namespace

// scores, probs: [visible]; scratch: [visible] (the sorted copy; z is kept in probs meanwhile)
template <class Real>
void Entmax15Normalizer::forward(const Real* scores, Real* probs, const RowSpec& row, const Real*,
                                 Real* scratch) const {
  const int n = row.visible;
  const Real tau = entmax15_threshold(scores, n, probs, scratch);
  for (int k = 0; k < n; ++k) {
    const Real t = std::max(probs[k] - tau, Real(0));
    probs[k] = t * t;
  }
}

// With g = sqrt(a), da/dz = 2 (diag(g) - g g^T / sum g) (the row sum stays 1), and z = s / 2 halves
// it again: dscores += g da - g (sum g da) / sum g.
template <class Real>
void Entmax15Normalizer::backward(const Real*, const Real* probs, const Real* dprobs, Real* dscores,
                                  const RowSpec& row, const Real*, Real*, Real*) const {
  const int n = row.visible;
  Real g_sum = 0, g_dot = 0;
  for (int k = 0; k < n; ++k) {
    const Real g = std::sqrt(probs[k]);
    g_sum += g;
    g_dot += g * dprobs[k];
  }
  const Real mean = g_dot / g_sum;  // g_sum > 0: the row sums to 1
  for (int k = 0; k < n; ++k) dscores[k] += std::sqrt(probs[k]) * (dprobs[k] - mean);
}

bool Entmax15Normalizer::near_kink(const double* scores, const RowSpec& row, const double*, double margin) const {
  const size_t n = static_cast<size_t>(row.visible);
  std::vector<double> z(n), sorted(n);
  const double tau = entmax15_threshold(scores, row.visible, z.data(), sorted.data());
  for (size_t k = 0; k < n; ++k)
    if (2.0 * std::fabs(z[k] - tau) < margin) return true;  // z = s / 2: back to units of s
  return false;
}

SINKLAB_ROW_MATH(Entmax15Normalizer)

NormalizerRegistration entmax15_normalizer_registration() {
  return {"entmax15", "1.5-entmax: max(s/2 - tau, 0)^2 with tau so that the row sums to 1 (exact zeros)", {},
          [](const PluginOptions&) -> std::unique_ptr<Normalizer> { return std::make_unique<Entmax15Normalizer>(); }};
}

}  // namespace sinklab
