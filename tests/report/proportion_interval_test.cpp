#include "report/proportion_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace sinklab {
namespace {

TEST(ProportionCi, MatchesPublishedClopperPearsonValues) {
  const ProportionCi none = proportion_ci95(0, 5);
  EXPECT_DOUBLE_EQ(none.lower, 0.0);
  EXPECT_NEAR(none.upper, 0.5218, 1e-4);  // 1 - 0.025^(1/5)
  const ProportionCi three = proportion_ci95(3, 10);
  EXPECT_DOUBLE_EQ(three.estimate, 0.3);
  EXPECT_NEAR(three.lower, 0.0667, 1e-4);
  EXPECT_NEAR(three.upper, 0.6525, 1e-4);
  const ProportionCi one_of_three = proportion_ci95(1, 3);
  EXPECT_NEAR(one_of_three.lower, 0.0084, 1e-4);
  EXPECT_NEAR(one_of_three.upper, 0.9057, 1e-4);
}

// The edges where mean +/- t s / sqrt(n) leaves [0, 1] or has no width.
TEST(ProportionCi, StaysInTheUnitIntervalAtTheEdges) {
  const std::vector<std::pair<int, int>> counts = {{0, 1}, {1, 1}, {0, 3}, {3, 3}, {1, 2}, {0, 40}, {40, 40}};
  for (const auto& [k, n] : counts) {
    SCOPED_TRACE(std::to_string(k) + " of " + std::to_string(n));
    const ProportionCi ci = proportion_ci95(k, n);
    EXPECT_GE(ci.lower, 0.0);
    EXPECT_LE(ci.upper, 1.0);
    EXPECT_LE(ci.lower, ci.estimate);
    EXPECT_GE(ci.upper, ci.estimate);
    EXPECT_LT(ci.upper - ci.lower, 1.0) << "even one trial says something";
  }
  EXPECT_NEAR(proportion_ci95(1, 1).lower, 0.025, 1e-12);  // 0.025^(1/1)
  EXPECT_DOUBLE_EQ(proportion_ci95(1, 1).upper, 1.0);
  EXPECT_NEAR(proportion_ci95(0, 1).upper, 0.975, 1e-12);
}

TEST(ProportionCi, NoTrialsIsUndefinedAndBadCountsThrow) {
  const ProportionCi empty = proportion_ci95(0, 0);
  EXPECT_FALSE(empty.defined());
  EXPECT_TRUE(std::isnan(empty.estimate));
  EXPECT_EQ(format_proportion_ci(empty, NumberStyle::fixed4), "-");
  EXPECT_THROW(proportion_ci95(4, 3), std::invalid_argument);
  EXPECT_THROW(proportion_ci95(-1, 3), std::invalid_argument);
}

TEST(ProportionCi, FormatsTheEstimateAndTheInterval) {
  EXPECT_EQ(format_proportion_ci(proportion_ci95(1, 3), NumberStyle::fixed4), "0.3333 [0.0084, 0.9057]");
  EXPECT_EQ(format_proportion_ci(proportion_ci95(2, 2), NumberStyle::fixed4), "1.0000 [0.1581, 1.0000]");
}

}  // namespace
}  // namespace sinklab
