#include "report/confidence_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sinklab {
namespace {

TEST(StudentT, QuantilesMatchTheTable) {
  // Two-sided 95% critical values from any t table.
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.303, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 9), 2.262, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.962, 1e-3);  // tends to the normal 1.960
  EXPECT_NEAR(student_t_quantile(0.95, 10), 1.812, 1e-3);
  EXPECT_NEAR(student_t_quantile(0.025, 4), -2.776, 1e-3);
}

TEST(StudentT, CdfIsSymmetricAndExactForSmallDof) {
  EXPECT_DOUBLE_EQ(student_t_cdf(0.0, 3), 0.5);
  EXPECT_NEAR(student_t_cdf(1.0, 1), 0.75, 1e-12);                             // Cauchy: 1/2 + atan(1)/pi
  EXPECT_NEAR(student_t_cdf(1.0, 2), 0.5 + 0.5 / std::sqrt(3.0), 1e-12);       // 1/2 + t / (2 sqrt(2 + t^2))
  EXPECT_NEAR(student_t_cdf(-1.7, 5) + student_t_cdf(1.7, 5), 1.0, 1e-12);
  EXPECT_THROW(student_t_quantile(1.0, 3), std::invalid_argument);
}

TEST(MeanCi, FiveValues) {
  const std::vector<double> v = {1, 2, 3, 4, 5};
  const MeanCi ci = mean_ci95(v);
  EXPECT_EQ(ci.n, 5);
  EXPECT_TRUE(ci.defined());
  EXPECT_DOUBLE_EQ(ci.mean, 3.0);
  EXPECT_NEAR(ci.half_width, 2.776445 * std::sqrt(2.5) / std::sqrt(5.0), 1e-5);
  EXPECT_EQ(format_mean_ci(ci, NumberStyle::fixed4), "3.0000 ± 1.9632");
  EXPECT_EQ(format_mean_ci(ci, NumberStyle::integer, "+/-"), "3 +/- 2");
}

TEST(MeanCi, SingleSeedHasNoInterval) {
  const std::vector<double> one = {0.9999};
  const MeanCi ci = mean_ci95(one);
  EXPECT_EQ(ci.n, 1);
  EXPECT_FALSE(ci.defined());
  EXPECT_EQ(format_mean_ci(ci, NumberStyle::fixed4), "0.9999 (n=1)");
  EXPECT_EQ(format_mean_ci(mean_ci95(std::vector<double>{}), NumberStyle::fixed4), "-");
}

TEST(MeanCi, NanValuesAreSkipped) {
  const std::vector<double> v = {2.0, std::nan(""), 4.0};
  const MeanCi ci = mean_ci95(v);
  EXPECT_EQ(ci.n, 2);
  EXPECT_DOUBLE_EQ(ci.mean, 3.0);
  EXPECT_NEAR(ci.half_width, 12.7062 * std::sqrt(2.0) / std::sqrt(2.0), 1e-3);
  EXPECT_EQ(format_number(2.5e-7, NumberStyle::scientific), "2.50e-07");
}

}  // namespace
}  // namespace sinklab
