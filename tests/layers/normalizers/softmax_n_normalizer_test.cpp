// softmax_n on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "layers/normalizers/softmax_n_normalizer.h"

namespace sinklab {
namespace {

// softmax1 on [0, 0]: 1 / (1 + 1 + 1) for each key and for the slot.
TEST(SoftmaxNNormalizer, Softmax1OnZerosGivesAThirdEach) {
  const SoftmaxNNormalizer norm(1.0);
  const double s[2] = {0.0, 0.0};
  double a[2];
  norm.forward_row_f64(s, a, RowSpec{1, 2, 2, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 1.0 / 3);
  EXPECT_DOUBLE_EQ(a[1], 1.0 / 3);
  const float sf[2] = {0.0f, 0.0f}, af[2] = {};
  EXPECT_NEAR(norm.virtual_mass(sf, af, RowSpec{1, 2, 2, 0}, nullptr), 1.0f / 3, 1e-7f);
}

// n = 4 on [ln 2, ln 2]: 2 / (4 + 2 + 2) = 1/4 per key, 1/2 on the slot.
TEST(SoftmaxNNormalizer, WeightNOfTheSlot) {
  const SoftmaxNNormalizer norm(4.0);
  const float s[2] = {std::log(2.0f), std::log(2.0f)};
  float a[2];
  norm.forward_row(s, a, RowSpec{1, 2, 2, 0}, nullptr, nullptr);
  EXPECT_NEAR(a[0], 0.25f, 1e-6f);
  EXPECT_NEAR(a[1], 0.25f, 1e-6f);
  EXPECT_NEAR(norm.virtual_mass(s, a, RowSpec{1, 2, 2, 0}, nullptr), 0.5f, 1e-6f);
}

// Large logits: the shift by max(0, max s) keeps everything finite; the slot's share is e^{-100} ~ 0.
TEST(SoftmaxNNormalizer, LargeLogitsStayFinite) {
  const SoftmaxNNormalizer norm(1.0);
  const float s[3] = {100.0f, 100.0f, 90.0f};
  float a[3];
  norm.forward_row(s, a, RowSpec{2, 3, 3, 0}, nullptr, nullptr);
  const double other = std::exp(-10.0) / (2 + std::exp(-10.0));
  EXPECT_NEAR(a[0], (1 - other) / 2, 1e-6);
  EXPECT_NEAR(a[2], other, 1e-7);
  EXPECT_EQ(norm.virtual_mass(s, a, RowSpec{2, 3, 3, 0}, nullptr), 0.0f);
}

}  // namespace
}  // namespace sinklab
