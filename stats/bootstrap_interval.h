#pragma once
// The mean over seeds of a bounded quantity (a share in [0, 1]: BOS mass, sink score, accuracy) with a
// 95% percentile-bootstrap interval. mean +/- t s / sqrt(n) is symmetric and leaves the range for a
// skewed sample (relu sink score "0.1557 +/- 0.6559"); every bootstrap mean lies between the smallest
// and the largest value, so the interval stays inside whatever bounds the values respect. Resampling
// uses a fixed seed and a portable integer distribution: a report is the same on every machine.
#include <cstdint>
#include <span>

namespace sinklab {

struct BootstrapMeanCi {
  int n = 0;
  double mean = 0.0;                // NaN when n = 0
  double lower = 0.0, upper = 0.0;  // the 2.5% and 97.5% points of the bootstrap means; NaN when n < 2
  bool defined() const { return n >= 2; }
};

inline constexpr int kBootstrapResamples = 10000;
inline constexpr uint64_t kBootstrapSeed = 20240607;

// NaN values are skipped (a diverged run has no meaningful mean); n counts the values used. The
// percentiles are the inverse empirical CDF of the sorted resample means: the smallest mean m with
// (count of means <= m) >= p * resamples.
BootstrapMeanCi bootstrap_mean_ci95(std::span<const double> values, int resamples = kBootstrapResamples,
                                    uint64_t seed = kBootstrapSeed);

}  // namespace sinklab
