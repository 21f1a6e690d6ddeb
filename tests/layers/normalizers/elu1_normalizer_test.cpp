// elu+1 attention on rows computed by hand: every divisor, both sides of 0, and rows of very
// negative scores (weights -> 0 but stay positive; row_sum rows stay distributions).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

std::unique_ptr<Normalizer> make(const std::string& divisor) {
  NormalizerConfig c;
  c.name = "elu1";
  if (!divisor.empty()) c.options.set("divisor", divisor);
  return normalizer_registry().create(c);
}

// f(s) = s + 1 above 0, e^s below: f(ln 0.5) = 0.5, f(0) = 1, f(2) = 3.
TEST(Elu1Normalizer, DefaultsAreElu1OverTheNonBosCount) {
  const auto norm = make("");
  const double s[3] = {std::log(0.5), 0.0, 2.0};
  double a[3];
  norm->forward_row_f64(s, a, RowSpec{2, 3, 8, 0}, nullptr, nullptr);  // divided by max(2, 1) = 2
  EXPECT_DOUBLE_EQ(a[0], 0.25);
  EXPECT_DOUBLE_EQ(a[1], 0.5);
  EXPECT_DOUBLE_EQ(a[2], 1.5);
  norm->forward_row_f64(s, a, RowSpec{0, 3, 8, 0}, nullptr, nullptr);  // max(0, 1) = 1
  EXPECT_DOUBLE_EQ(a[2], 3.0);
  EXPECT_EQ(norm->row_mass_kind(), RowMass::unnormalized);
  EXPECT_EQ(norm->name(), "elu1");
}

// Row 3 of a sequence of 8: none = 1, visible = 4, seq_len = 8, visible_non_bos = 3.
TEST(Elu1Normalizer, PositionalDivisors) {
  const float s[2] = {-std::log(4.0f), 0.5f};  // f = 0.25, 1.5
  for (auto [divisor, c] : {std::pair{"none", 1.0f}, {"visible", 4.0f}, {"seq_len", 8.0f}, {"visible_non_bos", 3.0f}}) {
    SCOPED_TRACE(divisor);
    const auto norm = make(divisor);
    float a[2];
    norm->forward_row(s, a, RowSpec{3, 2, 8, 0}, nullptr, nullptr);
    EXPECT_NEAR(a[0], 0.25f / c, 1e-6f);
    EXPECT_FLOAT_EQ(a[1], 1.5f / c);
    EXPECT_EQ(norm->row_mass_kind(), RowMass::unnormalized);
    ASSERT_TRUE(norm->tiled_form().has_value());
  }
}

// f = [0.5, 3] -> [1/7, 6/7]; all scores <= 0: f = [1/2, 1/4] -> [2/3, 1/3] (softmax of the row).
TEST(Elu1Normalizer, RowSumNormalizes) {
  const auto norm = make("row_sum");
  EXPECT_EQ(norm->row_mass_kind(), RowMass::simplex);
  EXPECT_FALSE(norm->tiled_form().has_value()) << "row_sum needs the whole row";
  const double mixed[2] = {std::log(0.5), 2.0}, negative[2] = {-std::log(2.0), -std::log(4.0)};
  double a[2];
  norm->forward_row_f64(mixed, a, RowSpec{5, 2, 8, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 1.0 / 7.0);
  EXPECT_DOUBLE_EQ(a[1], 6.0 / 7.0);
  norm->forward_row_f64(negative, a, RowSpec{5, 2, 8, 0}, nullptr, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(a[1], 1.0 / 3.0);
  const float sf[2] = {std::log(0.5f), 2.0f};
  float af[2];
  norm->forward_row(sf, af, RowSpec{5, 2, 8, 0}, nullptr, nullptr);
  EXPECT_NEAR(af[0], 1.0f / 7.0f, 1e-6f);
  EXPECT_NEAR(af[1], 6.0f / 7.0f, 1e-6f);
}

// elu -> -1 far below 0: an unnormalized weight tends to 0 but stays positive (float: above the
// exp's underflow at about -86), and its gradient e^s with it.
TEST(Elu1Normalizer, VeryNegativeScoresGiveSmallPositiveWeights) {
  const auto norm = make("none");
  const float s[3] = {-30.0f, -60.0f, 1.0f};
  float a[3], d[3] = {0, 0, 0};
  const float dp[3] = {1.0f, 1.0f, 1.0f};
  norm->forward_row(s, a, RowSpec{2, 3, 8, 0}, nullptr, nullptr);
  EXPECT_GT(a[0], 0.0f);
  EXPECT_NEAR(a[0], std::exp(-30.0f), 1e-6f * std::exp(-30.0f));
  EXPECT_GT(a[1], 0.0f);
  EXPECT_LT(a[1], 1e-25f);
  EXPECT_FLOAT_EQ(a[2], 2.0f);
  norm->backward_row(s, a, dp, d, RowSpec{2, 3, 8, 0}, nullptr, nullptr, nullptr);
  EXPECT_GT(d[0], 0.0f);
  EXPECT_NEAR(d[0], std::exp(-30.0f), 1e-6f * std::exp(-30.0f));
  EXPECT_FLOAT_EQ(d[2], 1.0f);
}

// row_sum rows of scores far below the exp's range (e^-1000 is 0 even in double) are still e^s / sum
// e^s, computed shifted by the row's maximum, and their gradient matches central differences.
TEST(Elu1Normalizer, RowSumOfVeryNegativeScoresStaysADistribution) {
  const auto norm = make("row_sum");
  const double s[3] = {-1000.0, -1000.0 + std::log(3.0), -1000.0 + std::log(4.0)};  // e^s in ratio 1 : 3 : 4
  double a[3];
  const RowSpec row{2, 3, 8, 0};
  norm->forward_row_f64(s, a, row, nullptr, nullptr);
  EXPECT_NEAR(a[0], 1.0 / 8.0, 1e-12);
  EXPECT_NEAR(a[1], 3.0 / 8.0, 1e-12);
  EXPECT_NEAR(a[2], 4.0 / 8.0, 1e-12);
  const float sf[2] = {-200.0f, -200.0f};
  float af[2];
  norm->forward_row(sf, af, RowSpec{1, 2, 8, 0}, nullptr, nullptr);
  EXPECT_FLOAT_EQ(af[0], 0.5f);
  EXPECT_FLOAT_EQ(af[1], 0.5f);

  const double r[3] = {0.7, -0.4, 0.2};  // random-projection loss L = sum r_k a_k
  double d[3] = {0, 0, 0};
  norm->backward_row_f64(s, a, r, d, row, nullptr, nullptr, nullptr);
  const double h = 1e-5;
  for (int k = 0; k < 3; ++k) {
    double up[3] = {s[0], s[1], s[2]}, down[3] = {s[0], s[1], s[2]}, au[3], ad[3];
    up[k] += h;
    down[k] -= h;
    norm->forward_row_f64(up, au, row, nullptr, nullptr);
    norm->forward_row_f64(down, ad, row, nullptr, nullptr);
    double numeric = 0;
    for (int j = 0; j < 3; ++j) numeric += r[j] * (au[j] - ad[j]) / (2 * h);
    EXPECT_NEAR(d[k], numeric, 1e-8) << "key " << k;
    EXPECT_GT(std::fabs(d[k]), 1e-3) << "key " << k << ": the gradient must not underflow";
  }
}

}  // namespace
}  // namespace sinklab
