// fast_exp: accuracy over its whole range against double exp, and the special values softmax and
// the stop rule rely on.
#include "core/kernels/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sinklab::kernels {
namespace {

TEST(FastExp, WithinOneAndAHalfUlpOverTheRange) {
  double worst = 0.0;
  float worst_x = 0.0f;
  for (int i = -86499; i <= 88700; ++i) {  // inside [-86.5, 88.72]
    const float x = static_cast<float>(i) * 1e-3f;
    const double exact = std::exp(static_cast<double>(x));
    // One ulp of the exact result: 2^(exponent - 23).
    const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
    const double err = std::abs(static_cast<double>(fast_exp(x)) - exact) / ulp;
    if (err > worst) {
      worst = err;
      worst_x = x;
    }
  }
  EXPECT_LT(worst, 1.5) << "at x = " << worst_x;
}

TEST(FastExp, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fast_exp(0.0f), 1.0f);
  EXPECT_EQ(fast_exp(-inf), 0.0f);
  EXPECT_EQ(fast_exp(-1000.0f), 0.0f);
  EXPECT_EQ(fast_exp(inf), inf);
  EXPECT_EQ(fast_exp(89.0f), inf);
  EXPECT_TRUE(std::isnan(fast_exp(std::nanf(""))));
  EXPECT_NEAR(fast_exp(1.0f), 2.7182817f, 3e-7);
  EXPECT_GT(fast_exp(88.7f), 3.0e38f);  // still finite just below overflow
  EXPECT_LT(fast_exp(88.7f), inf);
}

}  // namespace
}  // namespace sinklab::kernels
