#include "probes/expected_distance.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/rng.h"

namespace sinklab::probes {
namespace {

// sum_{k not marked} ||c_k - s|| with s = sum of the marked c_k.
double subset_distance(const double* c, int n, int dim, const uint8_t* mark, double* s) {
  std::fill(s, s + dim, 0.0);
  for (int k = 0; k < n; ++k)
    if (mark[k])
      for (int i = 0; i < dim; ++i) s[i] += c[static_cast<std::size_t>(k) * dim + i];
  double d = 0.0;
  for (int k = 0; k < n; ++k) {
    if (mark[k]) continue;
    double sq = 0.0;
    for (int i = 0; i < dim; ++i) {
      const double v = c[static_cast<std::size_t>(k) * dim + i] - s[i];
      sq += v * v;
    }
    d += std::sqrt(sq);
  }
  return d;
}

}  // namespace

ExpectationBounds expected_distance_bounds(const double* c, const double* total, int n, int dim, int N) {
  if (N < 1 || N >= n) throw std::invalid_argument("expected_distance_bounds: need 1 <= N < n");
  const double p = static_cast<double>(N) / (n - 1);
  double sum_sq = 0.0, total_sq = 0.0;  // sum_m ||c_m||^2, ||C||^2
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < dim; ++i)
      sum_sq += c[static_cast<std::size_t>(k) * dim + i] * c[static_cast<std::size_t>(k) * dim + i];
  for (int i = 0; i < dim; ++i) total_sq += total[i] * total[i];
  ExpectationBounds e;
  for (int k = 0; k < n; ++k) {
    const double* ck = c + static_cast<std::size_t>(k) * dim;
    double mean_sq = 0.0, ck_sq = 0.0, rest_sq = 0.0;  // ||c_k - p(C - c_k)||^2, ||c_k||^2, ||C - c_k||^2
    for (int i = 0; i < dim; ++i) {
      const double rest = total[i] - ck[i];
      const double y = ck[i] - p * rest;
      mean_sq += y * y;
      ck_sq += ck[i] * ck[i];
      rest_sq += rest * rest;
    }
    const double s_k = sum_sq - ck_sq;
    const double x_k = rest_sq - s_k;
    // The variance of a sum of N of the n - 1 other vectors drawn without replacement; 0 when n = 2 (p = 1).
    const double variance = n > 2 ? std::max(0.0, p * (1.0 - p) * (s_k - x_k / (n - 2))) : 0.0;
    e.main += std::sqrt(mean_sq);
    e.upper += std::sqrt(mean_sq + variance);
  }
  const double unselected = static_cast<double>(n - N) / n;
  e.main *= unselected;
  e.upper *= unselected;
  return e;
}

double expected_distance_mc(const double* c, int n, int dim, int N, int samples, uint64_t seed,
                            MonteCarloScratch& scratch) {
  if (N < 1 || N >= n || samples < 1)
    throw std::invalid_argument("expected_distance_mc: need 1 <= N < n and samples >= 1");
  Rng rng(seed);
  int* index = scratch.index_.data();
  uint8_t* mark = scratch.mark_.data();
  for (int k = 0; k < n; ++k) index[k] = k;
  double sum = 0.0;
  for (int r = 0; r < samples; ++r) {
    // A partial Fisher-Yates shuffle: index[0 .. N-1] is a uniform N-subset.
    for (int i = 0; i < N; ++i) {
      const int j = i + static_cast<int>(rng.below(static_cast<uint64_t>(n - i)));
      std::swap(index[i], index[j]);
    }
    std::fill(mark, mark + n, uint8_t{0});
    for (int i = 0; i < N; ++i) mark[index[i]] = 1;
    sum += subset_distance(c, n, dim, mark, scratch.s_.data());
  }
  return sum / samples;
}

double expected_distance_exact(const double* c, int n, int dim, int N) {
  if (N < 1 || N >= n || n > 20) throw std::invalid_argument("expected_distance_exact: need 1 <= N < n <= 20");
  std::vector<uint8_t> mark(static_cast<std::size_t>(n));
  std::vector<double> s(static_cast<std::size_t>(dim));
  double sum = 0.0;
  int64_t subsets = 0;
  for (uint32_t bits = 0; bits < (1u << n); ++bits) {
    if (__builtin_popcount(bits) != N) continue;
    for (int k = 0; k < n; ++k) mark[static_cast<std::size_t>(k)] = (bits >> k) & 1u;
    sum += subset_distance(c, n, dim, mark.data(), s.data());
    ++subsets;
  }
  return sum / static_cast<double>(subsets);
}

}  // namespace sinklab::probes
