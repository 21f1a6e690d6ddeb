// 1.5-entmax on rows with closed-form answers.
#include "layers/normalizers/entmax15_normalizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sinklab {
namespace {

std::vector<double> entmax15(std::vector<double> s) {
  const int n = static_cast<int>(s.size());
  std::vector<double> p(s.size()), scratch(s.size());
  Entmax15Normalizer().forward_row_f64(s.data(), p.data(), RowSpec{n - 1, n, n, 0}, nullptr, scratch.data());
  return p;
}

TEST(Entmax15Normalizer, EqualLogitsShareTheRow) {
  // z = [0, 0]: tau = -sqrt(1/2), each weight (1/sqrt(2))^2.
  const auto p = entmax15({0.7, 0.7});
  EXPECT_NEAR(p[0], 0.5, 1e-15);
  EXPECT_NEAR(p[1], 0.5, 1e-15);
}

TEST(Entmax15Normalizer, TwoKeysByHand) {
  // Two keys with z-gap d = (s_0 - s_1) / 2 < 1: a_0 = ((d + sqrt(2 - d^2)) / 2)^2, a_1 = 1 - a_0.
  // s = [1, 0]: d = 0.5, a_0 = ((0.5 + sqrt(1.75)) / 2)^2 = 0.830718...
  const auto p = entmax15({1.0, 0.0});
  const double a0 = std::pow((0.5 + std::sqrt(1.75)) / 2, 2);
  EXPECT_NEAR(p[0], a0, 1e-14);
  EXPECT_NEAR(p[1], 1 - a0, 1e-14);
  EXPECT_NEAR(a0, 0.8307189, 1e-7);
}

TEST(Entmax15Normalizer, SupportSmallerThanTheRow) {
  // A z-gap of at least 1 leaves one key: s = [3, 0] -> [1, 0]. Two equal keys far above a third:
  // s = [2, 2, -10] -> [0.5, 0.5, 0].
  EXPECT_EQ(entmax15({3.0, 0.0}), (std::vector<double>{1.0, 0.0}));
  const auto p = entmax15({2.0, 2.0, -10.0});
  EXPECT_NEAR(p[0], 0.5, 1e-15);
  EXPECT_NEAR(p[1], 0.5, 1e-15);
  EXPECT_EQ(p[2], 0.0);
}

TEST(Entmax15Normalizer, ShiftInvariantAndRowsSumToOneInFloat) {
  const float s[6] = {0.3f, -1.2f, 0.25f, 0.9f, 0.1f, -0.4f};
  float shifted[6], p[6], q[6], scratch[6];
  for (int k = 0; k < 6; ++k) shifted[k] = s[k] + 5.0f;
  const RowSpec row{5, 6, 6, 0};
  Entmax15Normalizer norm;
  norm.forward_row(s, p, row, nullptr, scratch);
  norm.forward_row(shifted, q, row, nullptr, scratch);
  float sum = 0;
  for (int k = 0; k < 6; ++k) {
    EXPECT_NEAR(p[k], q[k], 1e-6f);
    sum += p[k];
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_EQ(p[1], 0.0f);  // s = -1.2 is 1.05 below the max in z: outside any support
}

TEST(Entmax15Normalizer, BackwardOfTwoKeysByHand) {
  // Two keys in the support: a_0 = ((d + sqrt(2 - d^2)) / 2)^2 with d = (s_0 - s_1) / 2, so
  // da_0/ds_0 = (1/2) d a_0 / dd = sqrt(a_0) (1 - d / sqrt(2 - d^2)) / 2.
  const double s[2] = {1.0, 0.0}, da[2] = {1.0, 0.0};
  double p[2], scratch[2], ds[2] = {0, 0};
  const RowSpec row{1, 2, 2, 0};
  Entmax15Normalizer norm;
  norm.forward_row_f64(s, p, row, nullptr, scratch);
  norm.backward_row_f64(s, p, da, ds, row, nullptr, nullptr, scratch);
  const double d = 0.5, expected = std::sqrt(p[0]) * (1 - d / std::sqrt(2 - d * d)) / 2;
  EXPECT_NEAR(ds[0], expected, 1e-14);
  EXPECT_NEAR(ds[1], -expected, 1e-14);
}

}  // namespace
}  // namespace sinklab
