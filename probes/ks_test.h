#pragma once
// The two-sample Kolmogorov-Smirnov test (probe P3, critical N): D = sup |F1 - F2| of the two empirical
// distribution functions and its two-sided p-value, exact (lattice paths) when n * m <= 10^4 as scipy
// 1.10's ks_2samp(method="exact") computes it, else the asymptotic Kolmogorov series at
// sqrt(n m / (n + m)) D.
#include <span>

namespace sinklab::probes {

struct KsResult {
  double statistic = 0.0;  // D
  double p_value = 1.0;
  bool exact = true;       // lattice-path p (n m <= 10^4) or the Kolmogorov series
};

// Throws std::invalid_argument for an empty sample or a non-finite value.
KsResult ks_two_sample(std::span<const double> a, std::span<const double> b);

// P(D >= d) for samples of sizes n, m under H0, by counting the monotone lattice paths from (0, 0) to
// (n, m) that stay strictly inside |i/n - j/m| < d.
double ks_exact_p(int n, int m, double d);
// 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 x^2), clamped to [0, 1].
double kolmogorov_survival(double x);

}  // namespace sinklab::probes
