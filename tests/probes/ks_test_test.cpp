// The two-sample KS test against scipy 1.10's ks_2samp (method="exact") test vectors of
// normalization-limits-spec.md section A, and the asymptotic branch against the Kolmogorov distribution.
#include "probes/ks_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace sinklab::probes {
namespace {

TEST(KsTest, MatchesScipyOnTenShiftedValues) {
  std::vector<double> a, b;
  for (int k = 1; k <= 10; ++k) {
    a.push_back(k / 10.0);
    b.push_back(k / 10.0 + 0.45);
  }
  const KsResult r = ks_two_sample(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.statistic, 0.5, 1e-12);
  EXPECT_NEAR(r.p_value, 0.167821, 5e-7);
  const KsResult swapped = ks_two_sample(b, a);
  EXPECT_EQ(swapped.statistic, r.statistic);
  EXPECT_EQ(swapped.p_value, r.p_value);
}

TEST(KsTest, MatchesScipyOnFortyEightValuesWithRoundedTies) {
  // numpy's k/48 + 0.25 is not always (k + 12)/48 in double: those near-ties make D 13/48, not 12/48.
  std::vector<double> a, b;
  for (int k = 0; k < 48; ++k) {
    a.push_back(k / 48.0);
    b.push_back(k / 48.0 + 0.25);
  }
  const KsResult r = ks_two_sample(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.statistic, 0.270833, 5e-7);
  EXPECT_NEAR(r.p_value, 0.058763, 5e-7);
}

TEST(KsTest, IdenticalSamplesAreIndistinguishable) {
  const std::vector<double> a{0.3, 0.1, 0.2, 0.5};
  const KsResult r = ks_two_sample(a, a);
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_EQ(r.p_value, 1.0);
}

TEST(KsTest, AsymptoticBranchAboveTenThousandPairs) {
  // The Kolmogorov distribution's 5% point is 1.3581.
  EXPECT_NEAR(kolmogorov_survival(1.358099), 0.05, 2e-5);
  EXPECT_NEAR(kolmogorov_survival(1.627624), 0.01, 2e-5);
  std::vector<double> a, b;
  for (int k = 0; k < 101; ++k) a.push_back(k);
  for (int k = 0; k < 101; ++k) b.push_back(k + 20.5);
  const KsResult r = ks_two_sample(a, b);
  EXPECT_FALSE(r.exact) << "101 x 101 > 10^4 pairs";
  EXPECT_NEAR(r.statistic, 21.0 / 101, 1e-12);
  const double en = 101.0 * 101 / 202;
  EXPECT_DOUBLE_EQ(r.p_value, kolmogorov_survival(std::sqrt(en) * r.statistic));
  // The exact p of the same D is close to the series at this size.
  EXPECT_NEAR(ks_exact_p(101, 101, r.statistic), r.p_value, 0.02);
}

TEST(KsTest, RefusesEmptyAndNonFiniteSamples) {
  const std::vector<double> none, some{1.0}, bad{NAN};
  EXPECT_THROW(ks_two_sample(none, some), std::invalid_argument);
  EXPECT_THROW(ks_two_sample(some, bad), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab::probes
