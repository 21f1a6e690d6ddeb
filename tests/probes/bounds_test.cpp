// P1 and P5 on their own: the vanishing-attention bound holds for softmax rows built from q and k and
// is reported violated for a row that is not; the finite-difference sensitivity g stays below 1/(2T) and
// sqrt(2)/eps, matches the analytic Jacobian-vector product for small eps, and is flat in T for
// T << sigma_l (saturated rows) while it follows 1/T for T >> sigma_l.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "probes/gradient_sensitivity.h"
#include "probes/vanishing_bound.h"
#include "core/rng.h"

namespace sinklab::probes {
namespace {

TEST(VanishingBound, SoftmaxRowsOfRandomQueriesAndKeysStayInside) {
  Rng rng(2);
  for (int row = 0; row < 200; ++row) {
    const int n = 1 + static_cast<int>(rng.below(64)), d = 4;
    const double T = 0.5 + rng.uniform() * 4;
    std::vector<double> q(d), k(static_cast<std::size_t>(n * d)), l(static_cast<std::size_t>(n));
    for (double& v : q) v = rng.normal();
    for (double& v : k) v = rng.normal();
    double q_norm = 0, k_max = 0;
    for (const double v : q) q_norm += v * v;
    q_norm = std::sqrt(q_norm);
    for (int j = 0; j < n; ++j) {
      double kn = 0;
      for (int i = 0; i < d; ++i) {
        l[static_cast<std::size_t>(j)] += q[static_cast<std::size_t>(i)] * k[static_cast<std::size_t>(j * d + i)];
        kn += k[static_cast<std::size_t>(j * d + i)] * k[static_cast<std::size_t>(j * d + i)];
      }
      k_max = std::max(k_max, std::sqrt(kn));
    }
    std::vector<double> p(static_cast<std::size_t>(n));
    tempered_softmax(l.data(), nullptr, 0, n, T, p.data());
    const std::vector<float> a(p.begin(), p.end());
    const VanishingRow v = vanishing_row(a.data(), n, q_norm, k_max, T);
    EXPECT_FALSE(v.violated) << "row " << row;
    EXPECT_LE(v.n_min_weight, 1.0 + 1e-6);
    EXPECT_GE(v.n_max_weight, 1.0 - 1e-6);
  }
}

TEST(VanishingBound, ARowOutsideTheBoundIsReported) {
  // ||q|| max||k|| = 0.1 at T = 1: every weight within e^{+-0.2}/n, but this row puts 0.9 on one of 4 keys.
  const std::vector<float> a{0.9f, 0.05f, 0.03f, 0.02f};
  const VanishingRow v = vanishing_row(a.data(), 4, 0.1, 1.0, 1.0);
  EXPECT_TRUE(v.violated);
  EXPECT_NEAR(v.n_max_weight, 3.6, 1e-6);
  EXPECT_NEAR(v.upper, std::exp(0.2), 1e-12);
  EXPECT_TRUE(v.upper_violated);
  // Too small on one key: the lower side.
  const std::vector<float> low{0.3f, 0.3f, 0.3f, 0.1f};
  const VanishingRow w = vanishing_row(low.data(), 4, 0.1, 1.0, 1.0);
  EXPECT_TRUE(w.violated);
  EXPECT_FALSE(w.upper_violated);
  EXPECT_TRUE(w.lower_checked);
}

TEST(VanishingBound, ALowerBoundBelowFloatRangeIsNotCheckedButTheUpperIs) {
  // Delta/T = 40: e^{-80}/4 ~ 4e-36 < 1e-30, where a float32 softmax may round a weight to 0.
  const std::vector<float> a{1.0f, 0.0f, 0.0f, 0.0f};
  const VanishingRow v = vanishing_row(a.data(), 4, 4.0, 10.0, 1.0);
  EXPECT_FALSE(v.lower_checked);
  EXPECT_FALSE(v.violated);
  const VanishingRow tight = vanishing_row(a.data(), 4, 0.1, 1.0, 1.0);
  EXPECT_TRUE(tight.lower_checked);
  EXPECT_TRUE(tight.violated) << "a zero weight where e^{-0.2}/4 is the floor";
}

TEST(GradientSensitivity, StaysBelowBothBoundsAndMatchesTheJacobian) {
  Rng rng(9);
  std::vector<double> l(300), v(300), p0(300), p1(300);
  for (int row = 0; row < 100; ++row) {
    const int n = 2 + static_cast<int>(rng.below(299));
    const double sigma = 0.1 + 5 * rng.uniform();
    double vn = 0;
    for (int k = 0; k < n; ++k) {
      l[static_cast<std::size_t>(k)] = sigma * rng.normal();
      v[static_cast<std::size_t>(k)] = rng.normal();
      vn += v[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
    }
    for (int k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] /= std::sqrt(vn);
    for (const double T : {1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0}) {
      tempered_softmax(l.data(), nullptr, 0, n, T, p0.data());
      for (const double eps : {1e-3, 1e-1, 10.0}) {
        const double g = gradient_sensitivity(l.data(), v.data(), p0.data(), n, T, eps, p1.data());
        EXPECT_LE(g, 1 / (2 * T) * (1 + 1e-9) + 1e-12 / eps) << "row " << row << " T " << T << " eps " << eps;
        EXPECT_LE(g, std::sqrt(2.0) / eps * (1 + 1e-12));
      }
      // Small eps: g -> ||J v|| / T with J = diag(p) - p p^T.
      double pv = 0;
      for (int k = 0; k < n; ++k) pv += p0[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
      double jv = 0;
      for (int k = 0; k < n; ++k) {
        const double y = p0[static_cast<std::size_t>(k)] * (v[static_cast<std::size_t>(k)] - pv);
        jv += y * y;
      }
      jv = std::sqrt(jv) / T;
      // eps / T = 1e-5 keeps the second-order term ~1e-5 relative; the differences of probabilities near
      // 1 carry ~1e-15 absolute rounding, amplified by 1/eps.
      const double eps = 1e-5 * T;
      const double g = gradient_sensitivity(l.data(), v.data(), p0.data(), n, T, eps, p1.data());
      EXPECT_NEAR(g, jv, 1e-3 * jv + 1e-13 / eps) << "row " << row << " T " << T;
    }
  }
}

TEST(GradientSensitivity, FollowsOneOverTOnlyWellAboveTheLogitSpread) {
  // sigma_l = 4: for T >> 4 the row is near uniform and g ~ ||(I - 11^T/n) v|| / (n T); for T << 4 it
  // saturates on the top key and g collapses.
  Rng rng(1);
  const int n = 128;
  std::vector<double> l(n), v(n), p0(n), p1(n);
  double vn = 0;
  for (int k = 0; k < n; ++k) {
    l[static_cast<std::size_t>(k)] = 4 * rng.normal();
    v[static_cast<std::size_t>(k)] = rng.normal();
    vn += v[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
  }
  for (double& x : v) x /= std::sqrt(vn);
  const auto g_at = [&](double T) {
    tempered_softmax(l.data(), nullptr, 0, n, T, p0.data());
    return gradient_sensitivity(l.data(), v.data(), p0.data(), n, T, 1e-3, p1.data());
  };
  EXPECT_NEAR(g_at(100) / g_at(1000), 10.0, 0.5) << "1/T well above sigma_l";
  EXPECT_LT(g_at(1e-3), 1e-3 * (1 / (2 * 1e-3))) << "saturated far below sigma_l";
}

}  // namespace
}  // namespace sinklab::probes
