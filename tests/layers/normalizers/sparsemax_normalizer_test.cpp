// sparsemax on rows small enough to solve by hand.
#include "layers/normalizers/sparsemax_normalizer.h"

#include <gtest/gtest.h>

#include <vector>

namespace sinklab {
namespace {

std::vector<double> sparsemax(std::vector<double> s) {
  const int n = static_cast<int>(s.size());
  std::vector<double> p(s.size()), scratch(s.size());
  SparsemaxNormalizer().forward_row_f64(s.data(), p.data(), RowSpec{n - 1, n, n, 0}, nullptr, scratch.data());
  return p;
}

TEST(SparsemaxNormalizer, TwoKeysByHand) {
  // [1, 0]: tau = 0, the second key sits exactly on the boundary and gets 0.
  EXPECT_EQ(sparsemax({1.0, 0.0}), (std::vector<double>{1.0, 0.0}));
  // [0.2, 0]: both in the support, tau = (0.2 - 1) / 2 = -0.4.
  const auto p = sparsemax({0.2, 0.0});
  EXPECT_NEAR(p[0], 0.6, 1e-15);
  EXPECT_NEAR(p[1], 0.4, 1e-15);
}

TEST(SparsemaxNormalizer, SupportSmallerThanTheRow) {
  // sorted [3, 2.5, 1, -1]: k = 2 is the last with 1 + k z_(k) > sum, tau = (5.5 - 1) / 2 = 2.25.
  const auto p = sparsemax({1.0, 3.0, -1.0, 2.5});
  EXPECT_EQ(p[0], 0.0);
  EXPECT_NEAR(p[1], 0.75, 1e-15);
  EXPECT_EQ(p[2], 0.0);
  EXPECT_NEAR(p[3], 0.25, 1e-15);
}

TEST(SparsemaxNormalizer, RowsSumToOneInFloat) {
  const float s[7] = {0.3f, -1.2f, 0.25f, 0.9f, 0.1f, 0.85f, -0.4f};
  float p[7], scratch[7];
  SparsemaxNormalizer().forward_row(s, p, RowSpec{6, 7, 7, 0}, nullptr, scratch);
  float sum = 0;
  int zeros = 0;
  for (float v : p) {
    EXPECT_GE(v, 0.0f);
    sum += v;
    zeros += v == 0.0f;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_GT(zeros, 0);  // sparse
}

TEST(SparsemaxNormalizer, BackwardIsCenteredOnTheSupport) {
  const double s[4] = {1.0, 3.0, -1.0, 2.5}, da[4] = {5.0, 1.0, 7.0, 3.0};
  double p[4], scratch[4], ds[4] = {0, 0, 0, 0};
  const RowSpec row{3, 4, 4, 0};
  SparsemaxNormalizer norm;
  norm.forward_row_f64(s, p, row, nullptr, scratch);
  norm.backward_row_f64(s, p, da, ds, row, nullptr, nullptr, scratch);
  // support {1, 3}: mean da = 2
  EXPECT_EQ(ds[0], 0.0);
  EXPECT_DOUBLE_EQ(ds[1], -1.0);
  EXPECT_EQ(ds[2], 0.0);
  EXPECT_DOUBLE_EQ(ds[3], 1.0);
}

TEST(SparsemaxNormalizer, KinkIsAKeyOnTheSupportBoundary) {
  SparsemaxNormalizer norm;
  const double on_boundary[2] = {1.0, 0.0005}, inside[2] = {0.2, 0.0};
  EXPECT_TRUE(norm.near_kink(on_boundary, RowSpec{1, 2, 2, 0}, nullptr, 1e-3));
  EXPECT_FALSE(norm.near_kink(inside, RowSpec{1, 2, 2, 0}, nullptr, 1e-3));
}

}  // namespace
}  // namespace sinklab
