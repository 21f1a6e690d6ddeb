// The per-row numerics of the probes on random rows: d_true <= d_max when the row sums to 1 (300 rows,
// every N), E_main <= exact E <= E_up against exhaustive enumeration of the N-subsets (n <= 9), E_mc
// converging to the exact E, separability 1 at N = 1, d_r2 by its definition, the top-N order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "probes/distance_bound.h"
#include "probes/expected_distance.h"
#include "probes/separability.h"
#include "probes/top_set.h"
#include "core/rng.h"

namespace sinklab::probes {
namespace {

struct RandomRow {
  std::vector<double> a, x;
};

// Softmax weights of logits with spread `spread` (sum 1) and Gaussian vectors.
RandomRow random_row(Rng& rng, int n, int dim, double spread) {
  RandomRow r;
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    r.a.push_back(std::exp(spread * rng.normal()));
    sum += r.a.back();
  }
  for (double& v : r.a) v /= sum;
  for (int i = 0; i < n * dim; ++i) r.x.push_back(rng.normal());
  return r;
}

std::vector<int> order_of(const RandomRow& r) {
  std::vector<int> order(r.a.size());
  top_order(r.a.data(), static_cast<int>(r.a.size()), static_cast<int>(r.a.size()), order.data());
  return order;
}

TEST(TopOrder, HeaviestFirstTiesToTheLowerIndex) {
  const std::vector<double> a{0.1, 0.3, 0.2, 0.3, 0.1};
  std::vector<int> order(5);
  top_order(a.data(), 5, 5, order.data());
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2, 0, 4}));
}

TEST(DistanceBound, DTrueNeverExceedsDMaxOnRowsThatSumToOne) {
  Rng rng(11);
  int checked = 0;
  for (int row = 0; row < 300; ++row) {
    const int n = 2 + static_cast<int>(rng.below(40)), dim = 1 + static_cast<int>(rng.below(8));
    const RandomRow r = random_row(rng, n, dim, 0.5 + 3.0 * rng.uniform());
    const std::vector<int> order = order_of(r);
    TopSetScan scan(n, dim);
    scan.start(r.a.data(), r.x.data(), n, order.data(), nullptr, 0, n - 1);
    for (int N = 1; N < n; ++N) {
      scan.grow_to(N);
      const DistanceTerms t = scan.terms(true);
      EXPECT_LE(t.d_true, t.d_max * (1 + 1e-12)) << "row " << row << " n " << n << " N " << N;
      ++checked;
      // d_r2 = || sum_{k not in I} c_k - s ||, straight from the definition.
      std::vector<double> s(static_cast<std::size_t>(dim), 0.0), rest(static_cast<std::size_t>(dim), 0.0);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < dim; ++j)
          (i < N ? s : rest)[static_cast<std::size_t>(j)] +=
              r.a[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] *
              r.x[static_cast<std::size_t>(order[static_cast<std::size_t>(i)] * dim + j)];
      double sq = 0;
      for (int j = 0; j < dim; ++j)
        sq += (rest[static_cast<std::size_t>(j)] - s[static_cast<std::size_t>(j)]) *
              (rest[static_cast<std::size_t>(j)] - s[static_cast<std::size_t>(j)]);
      EXPECT_NEAR(t.d_r2, std::sqrt(sq), 1e-12);
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(DistanceBound, PairwiseTableGivesTheSameBound) {
  Rng rng(5);
  const int n = 12, dim = 3;
  const RandomRow r = random_row(rng, n, dim, 2.0);
  const std::vector<int> order = order_of(r);
  std::vector<float> table(static_cast<std::size_t>(n * n));
  for (int k = 0; k < n; ++k)
    for (int m = 0; m < n; ++m) {
      double sq = 0;
      for (int i = 0; i < dim; ++i)
        sq += std::pow(r.x[static_cast<std::size_t>(k * dim + i)] - r.x[static_cast<std::size_t>(m * dim + i)], 2);
      table[static_cast<std::size_t>(k * n + m)] = static_cast<float>(std::sqrt(sq));
    }
  TopSetScan direct(n, dim), tabled(n, dim);
  direct.start(r.a.data(), r.x.data(), n, order.data(), nullptr, 0, 6);
  tabled.start(r.a.data(), r.x.data(), n, order.data(), table.data(), n, 6);
  for (int N = 1; N <= 6; ++N) {
    direct.grow_to(N);
    tabled.grow_to(N);
    EXPECT_NEAR(direct.terms(true).d_max, tabled.terms(true).d_max, 1e-5);
  }
  direct.grow_to(7);
  EXPECT_THROW(direct.terms(true), std::logic_error) << "d_max beyond the tracked N is refused";
}

TEST(ExpectedDistance, MainAndUpperBracketTheExhaustiveMean) {
  Rng rng(3);
  for (int row = 0; row < 200; ++row) {
    const int n = 2 + static_cast<int>(rng.below(8)), dim = 1 + static_cast<int>(rng.below(5));  // n <= 9
    const RandomRow r = random_row(rng, n, dim, 3.0 * rng.uniform());
    const std::vector<int> order = order_of(r);
    TopSetScan scan(n, dim);
    scan.start(r.a.data(), r.x.data(), n, order.data(), nullptr, 0, 0);
    for (int N = 1; N < n; ++N) {
      const ExpectationBounds e = expected_distance_bounds(scan.c(), scan.total(), n, dim, N);
      const double exact = expected_distance_exact(scan.c(), n, dim, N);
      EXPECT_LE(e.main, exact * (1 + 1e-12)) << "row " << row << " n " << n << " N " << N;
      EXPECT_GE(e.upper, exact * (1 - 1e-12)) << "row " << row << " n " << n << " N " << N;
    }
  }
}

TEST(ExpectedDistance, UpperIsExactForOneVectorLeftOut) {
  // N = n - 1: every subset leaves out one key k, s_S = C - c_k, a single value per k: no variance.
  Rng rng(8);
  const RandomRow r = random_row(rng, 6, 2, 1.0);
  const std::vector<int> order = order_of(r);
  TopSetScan scan(6, 2);
  scan.start(r.a.data(), r.x.data(), 6, order.data(), nullptr, 0, 0);
  const ExpectationBounds e = expected_distance_bounds(scan.c(), scan.total(), 6, 2, 5);
  const double exact = expected_distance_exact(scan.c(), 6, 2, 5);
  EXPECT_NEAR(e.main, exact, 1e-12);
  EXPECT_NEAR(e.upper, exact, 1e-12);
}

TEST(ExpectedDistance, MonteCarloConvergesToTheExactMean) {
  Rng rng(4);
  const int n = 9, dim = 4;
  const RandomRow r = random_row(rng, n, dim, 1.5);
  const std::vector<int> order = order_of(r);
  TopSetScan scan(n, dim);
  scan.start(r.a.data(), r.x.data(), n, order.data(), nullptr, 0, 0);
  MonteCarloScratch scratch(n, dim);
  for (const int N : {1, 3, 7}) {
    const double exact = expected_distance_exact(scan.c(), n, dim, N);
    const double mc = expected_distance_mc(scan.c(), n, dim, N, 40000, 99, scratch);
    EXPECT_NEAR(mc, exact, 0.01 * exact) << "N " << N;
    EXPECT_EQ(mc, expected_distance_mc(scan.c(), n, dim, N, 40000, 99, scratch)) << "seeded";
  }
}

TEST(Separability, OneAtNEqualsOneAndCountsTheBall) {
  Rng rng(6);
  for (int row = 0; row < 300; ++row) {
    const int n = 2 + static_cast<int>(rng.below(30)), dim = 2 + static_cast<int>(rng.below(6));
    RandomRow r = random_row(rng, n, dim, 2.0);
    std::vector<double> unit(r.x.size());
    for (int k = 0; k < n; ++k) {
      double sq = 0;
      for (int i = 0; i < dim; ++i)
        sq += r.x[static_cast<std::size_t>(k * dim + i)] * r.x[static_cast<std::size_t>(k * dim + i)];
      for (int i = 0; i < dim; ++i)
        unit[static_cast<std::size_t>(k * dim + i)] =
            r.a[static_cast<std::size_t>(k)] * r.x[static_cast<std::size_t>(k * dim + i)] / std::sqrt(sq);
    }
    const std::vector<int> order = order_of(r);
    std::vector<double> s(static_cast<std::size_t>(dim));
    const Separability one = separability(unit.data(), n, dim, order.data(), 1, s.data());
    ASSERT_GT(one.radius, 0.0);
    EXPECT_EQ(one.ratio, 1.0) << "row " << row;
    for (int N = 2; N < n; ++N) {
      const Separability sep = separability(unit.data(), n, dim, order.data(), N, s.data());
      EXPECT_GE(sep.ratio, 0.0);
      EXPECT_LE(sep.ratio, 1.0);
    }
  }
  // By hand, on a line (dim 1, unit vectors +-1): c = {0.5, 0.3, -0.2}, I_2 = {0, 1}, s = 0.8;
  // r = |0.8 + 0.2| = 1; |0.5 - 0.8| = 0.3 < 1 and |0.3 - 0.8| = 0.5 < 1: both inside.
  const std::vector<double> c{0.5, 0.3, -0.2};
  const std::vector<int> order{0, 1, 2};
  double s = 0;
  const Separability sep = separability(c.data(), 3, 1, order.data(), 2, &s);
  EXPECT_DOUBLE_EQ(sep.radius, 1.0);
  EXPECT_EQ(sep.ratio, 1.0);
  const std::vector<double> close{0.4, -0.35, 0.25};
  const Separability half = separability(close.data(), 3, 1, order.data(), 2, &s);
  // s = 0.05, r = 0.2; |0.4 - 0.05| = 0.35 > 0.2 out, |-0.35 - 0.05| = 0.4 > 0.2 out.
  EXPECT_DOUBLE_EQ(half.ratio, 0.0);
}

}  // namespace
}  // namespace sinklab::probes
