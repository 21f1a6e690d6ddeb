// fast_normal_cdf against double-precision erfc: the accuracy its header promises, the tails and the
// special values.
#include "core/kernels/fast_normal_cdf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sinklab::kernels {
namespace {

double exact_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

TEST(FastNormalCdf, AbsoluteAndLowerTailRelativeAccuracy) {
  double worst_abs = 0.0, worst_tail_rel = 0.0;
  for (int i = -100000; i <= 100000; ++i) {
    const float x = static_cast<float>(i) * 1e-4f;  // [-10, 10]
    const double exact = exact_cdf(x);
    const double got = fast_normal_cdf(x);
    worst_abs = std::max(worst_abs, std::fabs(got - exact));
    if (x < 0.0f && exact > 1e-30) worst_tail_rel = std::max(worst_tail_rel, std::fabs(got - exact) / exact);
  }
  EXPECT_LT(worst_abs, 2e-7);
  // The argument of exp is -z^2 + P(t) in float: its rounding (~z^2 * 6e-8) bounds the tail's accuracy.
  EXPECT_LT(worst_tail_rel, 1e-5);
}

TEST(FastNormalCdf, SpecialValues) {
  EXPECT_EQ(fast_normal_cdf(std::numeric_limits<float>::infinity()), 1.0f);
  EXPECT_EQ(fast_normal_cdf(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(fast_normal_cdf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_NEAR(fast_normal_cdf(0.0f), 0.5f, 1e-7f);
  EXPECT_NEAR(fast_normal_cdf(1.0f), 0.8413447f, 2e-7f);
  EXPECT_NEAR(fast_normal_cdf(-3.0f), 1.3498980e-3f, 1e-9f);
}

}  // namespace
}  // namespace sinklab::kernels
