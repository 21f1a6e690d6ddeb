// sparsemax on rows small enough to solve by hand, and on long rows against the sort-based threshold.
#include "layers/normalizers/sparsemax_normalizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "core/rng.h"

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

// The textbook threshold: sort descending, k* the largest k with 1 + k z_(k) > sum_{r <= k} z_(r),
// tau = (sum_{r <= k*} z_(r) - 1) / k*.
double sorted_threshold(std::vector<double> z) {
  std::sort(z.begin(), z.end(), std::greater<double>());
  double cumulative = 0, support_sum = 0;
  int support = 0;
  for (int k = 1; k <= static_cast<int>(z.size()); ++k) {
    cumulative += z[k - 1];
    if (1.0 + k * z[k - 1] > cumulative) {
      support = k;
      support_sum = cumulative;
    }
  }
  return (support_sum - 1.0) / support;
}

TEST(SparsemaxNormalizer, LongRowsMatchTheSortedThreshold) {
  // Rows of up to 1024 keys whose scores spread over 0.01 (every key in the support) to 20 (a few),
  // some with ties at the top: the weights are max(z - tau, 0) for the sorted tau.
  Rng rng(11);
  int rows = 0;
  for (const int n : {1, 2, 3, 17, 300, 1024})
    for (const double spread : {0.01, 0.3, 1.0, 4.0, 20.0})
      for (int tie = 0; tie < 2; ++tie) {
        std::vector<float> u(static_cast<size_t>(n));
        rng.fill_uniform(u, -1.0f, 1.0f);
        std::vector<double> z(u.begin(), u.end());
        for (double& x : z) x *= spread;
        if (tie && n > 2) z[1] = z[0] = *std::max_element(z.begin(), z.end());
        const double tau = sorted_threshold(z);
        const auto p = sparsemax(z);
        double sum = 0;
        for (int k = 0; k < n; ++k) {
          EXPECT_NEAR(p[k], std::max(z[k] - tau, 0.0), 1e-12) << "n " << n << " spread " << spread << " key " << k;
          sum += p[k];
        }
        EXPECT_NEAR(sum, 1.0, 1e-12);
        ++rows;
      }
  EXPECT_EQ(rows, 60);
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
