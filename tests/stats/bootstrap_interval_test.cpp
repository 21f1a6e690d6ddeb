#include "stats/bootstrap_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sinklab {
namespace {

void expect_inside_unit_range(const BootstrapMeanCi& ci) {
  EXPECT_GE(ci.lower, 0.0);
  EXPECT_LE(ci.upper, 1.0);
  EXPECT_LE(ci.lower, ci.mean);
  EXPECT_GE(ci.upper, ci.mean);
}

TEST(BootstrapInterval, AllZeroSamplesGiveThePointZero) {
  const std::vector<double> v(5, 0.0);
  const BootstrapMeanCi ci = bootstrap_mean_ci95(v);
  EXPECT_EQ(ci.n, 5);
  EXPECT_EQ(ci.mean, 0.0);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_EQ(ci.upper, 0.0);
}

TEST(BootstrapInterval, AllOneSamplesGiveThePointOne) {
  const std::vector<double> v(7, 1.0);
  const BootstrapMeanCi ci = bootstrap_mean_ci95(v);
  EXPECT_EQ(ci.mean, 1.0);
  EXPECT_EQ(ci.lower, 1.0);
  EXPECT_EQ(ci.upper, 1.0);
}

TEST(BootstrapInterval, SkewedSharesStayInsideTheUnitRange) {
  // The relu sink scores that gave "0.1557 ± 0.6559" with Student's t: one seed far from the others.
  const std::vector<double> skewed = {0.0, 0.0, 0.7785, 0.0, 0.0};
  expect_inside_unit_range(bootstrap_mean_ci95(skewed));
  const std::vector<double> tiny = {0.0, 0.0, 0.0010, 0.0, 0.0};  // BOS "0.0002 ± 0.0008"
  const BootstrapMeanCi t = bootstrap_mean_ci95(tiny);
  expect_inside_unit_range(t);
  EXPECT_EQ(t.lower, 0.0);
  const std::vector<double> mixed = {0.2, 0.9, 0.4, 1.0, 0.0, 0.55};
  expect_inside_unit_range(bootstrap_mean_ci95(mixed));
  for (int n = 2; n <= 6; ++n) {  // a single 1 among zeros, every sample size
    std::vector<double> v(static_cast<size_t>(n), 0.0);
    v.back() = 1.0;
    expect_inside_unit_range(bootstrap_mean_ci95(v));
  }
}

TEST(BootstrapInterval, PercentilesMatchTheExactBootstrapDistribution) {
  // {0, 0, 0, 1}: a resample mean is K/4 with K ~ Binomial(4, 1/4), so (by hand)
  // P(K = 0) = (3/4)^4 = 0.3164 >= 0.025, hence the 2.5% point is 0;
  // P(K <= 2) = 0.3164 + 0.4219 + 0.2109 = 0.9492 < 0.975 <= P(K <= 3) = 0.9961, hence the 97.5% point is 3/4.
  // With 10000 resamples the empirical P(K <= 2) is 0.949 +/- 0.002, far from both thresholds.
  const std::vector<double> v = {0.0, 0.0, 0.0, 1.0};
  const BootstrapMeanCi ci = bootstrap_mean_ci95(v);
  EXPECT_EQ(ci.mean, 0.25);
  EXPECT_EQ(ci.lower, 0.0);
  EXPECT_EQ(ci.upper, 0.75);
  // {0, 1}: K ~ Binomial(2, 1/2); P(K = 0) = 0.25, P(K <= 1) = 0.75 < 0.975: the interval is [0, 1].
  const std::vector<double> two = {0.0, 1.0};
  const BootstrapMeanCi t = bootstrap_mean_ci95(two);
  EXPECT_EQ(t.lower, 0.0);
  EXPECT_EQ(t.upper, 1.0);
}

TEST(BootstrapInterval, IsReproducibleAndSkipsNan) {
  const std::vector<double> v = {0.31, 0.12, 0.77, std::nan(""), 0.45};
  const BootstrapMeanCi a = bootstrap_mean_ci95(v), b = bootstrap_mean_ci95(v);
  EXPECT_EQ(a.n, 4);
  EXPECT_DOUBLE_EQ(a.mean, (0.31 + 0.12 + 0.77 + 0.45) / 4);
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
  EXPECT_LT(a.lower, a.mean);
  EXPECT_GT(a.upper, a.mean);
}

TEST(BootstrapInterval, UndefinedBelowTwoValues) {
  const std::vector<double> one = {0.4};
  const BootstrapMeanCi ci = bootstrap_mean_ci95(one);
  EXPECT_EQ(ci.n, 1);
  EXPECT_EQ(ci.mean, 0.4);
  EXPECT_FALSE(ci.defined());
  EXPECT_TRUE(std::isnan(ci.lower));
  const BootstrapMeanCi none = bootstrap_mean_ci95(std::vector<double>{});
  EXPECT_EQ(none.n, 0);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_THROW(bootstrap_mean_ci95(one, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
