#include "probes/ks_test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace sinklab::probes {

double kolmogorov_survival(double x) {
  if (x <= 0.0) return 1.0;
  double sum = 0.0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * x * x);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-18) break;
  }
  return std::clamp(2.0 * sum, 0.0, 1.0);
}

double ks_exact_p(int n, int m, double d) {
  if (n <= 0 || m <= 0) throw std::invalid_argument("ks_exact_p: sample sizes must be positive");
  // A point (i, j) is outside when |i m - j n| >= h, all in integers: D is a multiple of 1 / lcm(n, m)
  // on these lattices, so rounding d * n * m to the nearest integer removes floating-point ties.
  const int64_t h = std::llround(d * static_cast<double>(n) * m);
  if (h <= 0) return 1.0;
  // paths[j] = number of inside paths to (i, j), in units of the previous binomial (kept in double:
  // C(200, 100) ~ 9e58 is the largest count for n m <= 10^4).
  std::vector<double> paths(static_cast<std::size_t>(m) + 1, 0.0);
  const auto inside = [&](int64_t i, int64_t j) { return std::llabs(i * m - j * n) < h; };
  paths[0] = 1.0;
  for (int j = 1; j <= m; ++j)
    paths[static_cast<std::size_t>(j)] = inside(0, j) ? paths[static_cast<std::size_t>(j) - 1] : 0.0;
  for (int i = 1; i <= n; ++i) {
    paths[0] = inside(i, 0) ? paths[0] : 0.0;
    for (int j = 1; j <= m; ++j) {
      const auto u = static_cast<std::size_t>(j);
      paths[u] = inside(i, j) ? paths[u] + paths[u - 1] : 0.0;
    }
  }
  // C(n + m, n) as a product in double.
  double total = 1.0;
  for (int k = 1; k <= n; ++k) total = total * (m + k) / k;
  return std::clamp(1.0 - paths[static_cast<std::size_t>(m)] / total, 0.0, 1.0);
}

KsResult ks_two_sample(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("ks_two_sample: both samples need at least one value");
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  for (const double v : x)
    if (!std::isfinite(v)) throw std::invalid_argument("ks_two_sample: a value of the first sample is not finite");
  for (const double v : y)
    if (!std::isfinite(v)) throw std::invalid_argument("ks_two_sample: a value of the second sample is not finite");
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const auto n = x.size(), m = y.size();
  std::size_t i = 0, j = 0;
  double d = 0.0;
  // Walk the merged sample; at each distinct value both ECDFs have taken every copy of it.
  while (i < n || j < m) {
    const double v = (j >= m || (i < n && x[i] <= y[j])) ? x[i] : y[j];
    while (i < n && x[i] <= v) ++i;
    while (j < m && y[j] <= v) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / n - static_cast<double>(j) / m));
  }
  KsResult r;
  r.statistic = d;
  r.exact = static_cast<double>(n) * static_cast<double>(m) <= 1e4;
  if (r.exact) {
    r.p_value = ks_exact_p(static_cast<int>(n), static_cast<int>(m), d);
  } else {
    const double en = static_cast<double>(n) * m / (static_cast<double>(n) + m);
    r.p_value = kolmogorov_survival(std::sqrt(en) * d);
  }
  return r;
}

}  // namespace sinklab::probes
