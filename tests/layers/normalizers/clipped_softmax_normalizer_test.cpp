// Clipped softmax on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layers/normalizers/clipped_softmax_normalizer.h"
#include "layers/normalizers/softmax_normalizer.h"

namespace sinklab {
namespace {

// gamma 0, zeta 1: the clip never binds, so forward and backward are softmax's.
TEST(ClippedSoftmaxNormalizer, NoStretchIsSoftmax) {
  const ClippedSoftmaxNormalizer clipped(0.0, 1.0);
  const SoftmaxNormalizer softmax;
  const double s[4] = {0.3, -1.2, 2.0, 0.7}, da[4] = {1.0, -0.5, 0.25, 2.0};
  double a[4], want[4], ds[4] = {}, want_ds[4] = {};
  std::vector<double> scratch(4);
  clipped.forward_row_f64(s, a, RowSpec{3, 4, 4, 0}, nullptr, scratch.data());
  softmax.forward_row_f64(s, want, RowSpec{3, 4, 4, 0}, nullptr, nullptr);
  clipped.backward_row_f64(s, a, da, ds, RowSpec{3, 4, 4, 0}, nullptr, nullptr, scratch.data());
  softmax.backward_row_f64(s, want, da, want_ds, RowSpec{3, 4, 4, 0}, nullptr, nullptr, nullptr);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(a[k], want[k], 1e-15) << k;
    EXPECT_NEAR(ds[k], want_ds[k], 1e-15) << k;
  }
}

// gamma -0.03, zeta 1 on [0, 0, -10]: p_2 = e^{-10} / (2 + e^{-10}) < 0.03 / 1.03 is clipped to
// exactly 0 and passes no gradient; the others are 1.03 p - 0.03. A single key stays exactly 1.
TEST(ClippedSoftmaxNormalizer, SmallWeightsClipToZero) {
  const ClippedSoftmaxNormalizer norm(-0.03, 1.0);
  const double s[3] = {0.0, 0.0, -10.0}, da[3] = {0.0, 0.0, 1.0};
  double a[3], ds[3] = {};
  std::vector<double> scratch(3);
  norm.forward_row_f64(s, a, RowSpec{2, 3, 3, 0}, nullptr, scratch.data());
  const double p0 = 1.0 / (2 + std::exp(-10.0));
  EXPECT_NEAR(a[0], 1.03 * p0 - 0.03, 1e-15);
  EXPECT_EQ(a[2], 0.0);
  norm.backward_row_f64(s, a, da, ds, RowSpec{2, 3, 3, 0}, nullptr, nullptr, scratch.data());
  for (int k = 0; k < 3; ++k) EXPECT_EQ(ds[k], 0.0) << k;
  const double one[1] = {4.0};
  norm.forward_row_f64(one, a, RowSpec{0, 1, 3, 0}, nullptr, scratch.data());
  EXPECT_EQ(a[0], 1.0);
}

// zeta 1.003: a dominant weight is clipped to exactly 1 and the row may sum above 1 (negative
// virtual mass).
TEST(ClippedSoftmaxNormalizer, LargeWeightsClipToOne) {
  const ClippedSoftmaxNormalizer norm(0.0, 1.003);
  const float s[2] = {10.0f, 0.0f};
  float a[2];
  std::vector<float> scratch(2);
  norm.forward_row(s, a, RowSpec{1, 2, 2, 0}, nullptr, scratch.data());
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_NEAR(a[1], 1.003 * std::exp(-10.0) / (1 + std::exp(-10.0)), 1e-9);
  EXPECT_LT(norm.virtual_mass(s, a, RowSpec{1, 2, 2, 0}, nullptr), 0.0f);
}

}  // namespace
}  // namespace sinklab
