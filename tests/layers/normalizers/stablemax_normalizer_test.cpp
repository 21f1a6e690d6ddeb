// Stablemax on a row computed by hand.
#include <gtest/gtest.h>

#include "layers/normalizers/stablemax_normalizer.h"

namespace sinklab {
namespace {

// S([0, 1, -1]) = [1, 2, 1/2], sum 7/2 -> [2/7, 4/7, 1/7]; not shift-invariant, unlike softmax.
TEST(StablemaxNormalizer, HandComputedRow) {
  const StablemaxNormalizer norm;
  const double s[3] = {0.0, 1.0, -1.0};
  double a[3];
  norm.forward_row_f64(s, a, RowSpec{2, 3, 3, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 2.0 / 7);
  EXPECT_DOUBLE_EQ(a[1], 4.0 / 7);
  EXPECT_DOUBLE_EQ(a[2], 1.0 / 7);
  // ds = S'(s) / sum S (da - <a, da>) with S' = [1, 1, 1/4]; da = [0, 1, 0]: <a, da> = 4/7.
  const double da[3] = {0.0, 1.0, 0.0};
  double ds[3] = {};
  norm.backward_row_f64(s, a, da, ds, RowSpec{2, 3, 3, 0}, nullptr, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(ds[0], (2.0 / 7) * (-4.0 / 7));
  EXPECT_DOUBLE_EQ(ds[1], (2.0 / 7) * (3.0 / 7));
  EXPECT_DOUBLE_EQ(ds[2], 0.25 * (2.0 / 7) * (-4.0 / 7));
}

// Extreme logits: linear growth, nothing overflows.
TEST(StablemaxNormalizer, ExtremeLogitsStayFinite) {
  const StablemaxNormalizer norm;
  const float s[2] = {1e6f, -1e6f};
  float a[2];
  norm.forward_row(s, a, RowSpec{1, 2, 2, 0}, nullptr, nullptr);
  EXPECT_NEAR(a[0], 1.0f, 1e-6f);
  EXPECT_GT(a[1], 0.0f);
}

}  // namespace
}  // namespace sinklab
