#include "stats/bootstrap_interval.h"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab {
namespace {

// The p-quantile of sorted values as the inverse empirical CDF (type 1 of Hyndman and Fan).
double inverse_cdf(const std::vector<double>& sorted, double p) {
  const double rank = std::ceil(p * static_cast<double>(sorted.size()));
  const size_t index = rank < 1.0 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

BootstrapMeanCi bootstrap_mean_ci95(std::span<const double> values, int resamples, uint64_t seed) {
  if (resamples < 1)
    throw std::invalid_argument("bootstrap_mean_ci95: resamples must be >= 1 (got " + std::to_string(resamples) + ")");
  std::vector<double> kept;
  for (double v : values)
    if (!std::isnan(v)) kept.push_back(v);
  BootstrapMeanCi ci;
  ci.n = static_cast<int>(kept.size());
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  ci.lower = ci.upper = kNan;
  if (kept.empty()) {
    ci.mean = kNan;
    return ci;
  }
  double sum = 0.0;
  for (double v : kept) sum += v;
  ci.mean = sum / static_cast<double>(kept.size());
  if (kept.size() < 2) return ci;
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_int_distribution<size_t> pick(0, kept.size() - 1);
  std::vector<double> means(static_cast<size_t>(resamples));
  for (double& m : means) {
    double s = 0.0;
    for (size_t i = 0; i < kept.size(); ++i) s += kept[pick(rng)];
    m = s / static_cast<double>(kept.size());
  }
  std::sort(means.begin(), means.end());
  ci.lower = inverse_cdf(means, 0.025);
  ci.upper = inverse_cdf(means, 0.975);
  return ci;
}

}  // namespace sinklab
