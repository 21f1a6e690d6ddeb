#include "core/kernels/finite_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.h"

namespace sinklab {
namespace {

TEST(CountNonFinite, MatchesTheReferenceOnEveryKindOfValue) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {0.0f, -0.0f, 1.0f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::denorm_min(), inf, -inf, nan, -nan};
  Rng rng(7);
  for (int64_t n : {0, 1, 7, 16, 33, 1000}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = rng.below(4) == 0 ? specials[rng.below(10)] : static_cast<float>(rng.normal());
    EXPECT_EQ(kernels::count_non_finite(x.data(), n), kernels::count_non_finite_reference(x.data(), n)) << n;
  }
  std::vector<float> one_bad(100, 1.0f);
  one_bad[99] = nan;
  EXPECT_EQ(kernels::count_non_finite(one_bad.data(), 100), 1);
  one_bad[0] = -inf;
  EXPECT_EQ(kernels::count_non_finite(one_bad.data(), 100), 2);
  EXPECT_EQ(kernels::count_non_finite(one_bad.data() + 1, 98), 0);
}

}  // namespace
}  // namespace sinklab
