// P5's row maps (probes/sensitivity_rows.h): softmax is the spec's tempered softmax; ssmax
// is a softmax at temperature T / (s_h ln n); sparsemax is the simplex projection of l / T. Each keeps
// g below its own bound on random rows over the temperature grid, and the ssmax and sparsemax bounds
// are needed: their g exceeds softmax's 1/(2T) on the same rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "probes/gradient_sensitivity.h"
#include "probes/sensitivity_rows.h"
#include "core/rng.h"

namespace sinklab::probes {
namespace {

RowKind kind(const std::string& name) { return RowKind{name == "softmax", 1.0, NormalizerConfig{name, {}}}; }

struct Row {
  std::vector<double> l, v;
};

// A row of n logits of spread `sigma` and a unit direction.
Row random_row(Rng& rng, int n, double sigma) {
  Row r{std::vector<double>(static_cast<std::size_t>(n)), std::vector<double>(static_cast<std::size_t>(n))};
  double norm = 0;
  for (int k = 0; k < n; ++k) {
    r.l[static_cast<std::size_t>(k)] = sigma * rng.normal();
    r.v[static_cast<std::size_t>(k)] = rng.normal();
    norm += r.v[static_cast<std::size_t>(k)] * r.v[static_cast<std::size_t>(k)];
  }
  for (double& x : r.v) x /= std::sqrt(norm);
  return r;
}

// The largest g / bound and g * 2T seen over random rows, temperatures and steps.
struct Extremes {
  double worst_ratio = 0, largest_2T_g = 0;
};

Extremes sweep(const SensitivityRows& rows, const double* params, uint64_t seed) {
  Rng rng(seed);
  Extremes e;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + static_cast<int>(rng.below(200));
    const Row r = random_row(rng, n, 0.2 + 3.0 * rng.uniform());
    std::vector<double> p0(r.l.size()), p1(r.l.size()), scratch(static_cast<std::size_t>(rows.scratch_size(n)));
    for (const double T : {0.01, 0.1, 0.5, 1.0, 4.0, 30.0}) {
      rows.apply(r.l.data(), nullptr, 0.0, n, 256, T, params, p0.data(), scratch.data());
      for (const double eps : {1e-6, 1e-3, 0.1}) {
        const double g = row_sensitivity(rows, r.l.data(), r.v.data(), p0.data(), n, 256, T, eps, params, p1.data(),
                                         scratch.data());
        e.worst_ratio = std::max(e.worst_ratio, g / rows.bound(n, T, eps, params));
        e.largest_2T_g = std::max(e.largest_2T_g, 2.0 * T * g);
      }
    }
  }
  return e;
}

TEST(SensitivityRows, SoftmaxIsTheSpecsTemperedSoftmax) {
  const SensitivityRows rows(kind("softmax"));
  Rng rng(3);
  const Row r = random_row(rng, 40, 2.0);
  std::vector<double> want(40), got(40), scratch(static_cast<std::size_t>(rows.scratch_size(40)));
  tempered_softmax(r.l.data(), r.v.data(), 0.3, 40, 0.7, want.data());
  rows.apply(r.l.data(), r.v.data(), 0.3, 40, 64, 0.7, nullptr, got.data(), scratch.data());
  EXPECT_EQ(got, want);
  EXPECT_DOUBLE_EQ(rows.bound(40, 0.7, 1e-3, nullptr), 1.0 / 1.4);
  EXPECT_DOUBLE_EQ(rows.bound(40, 0.7, 10.0, nullptr), std::sqrt(2.0) / 10.0);
  EXPECT_LE(sweep(rows, nullptr, 5).worst_ratio, 1.0 + 1e-9);
}

TEST(SensitivityRows, SsmaxIsASoftmaxAtTemperatureTOverSLogN) {
  const SensitivityRows rows(kind("ssmax"));
  ASSERT_EQ(rows.params_per_head(), 1);
  const double s = 1.7;
  Rng rng(4);
  const int n = 50;
  const Row r = random_row(rng, n, 1.5);
  std::vector<double> want(n), got(n), scratch(static_cast<std::size_t>(rows.scratch_size(n)));
  const double T = 0.9;
  tempered_softmax(r.l.data(), nullptr, 0.0, n, T / (s * std::log(double{n})), want.data());
  rows.apply(r.l.data(), nullptr, 0.0, n, 64, T, &s, got.data(), scratch.data());
  for (int k = 0; k < n; ++k) EXPECT_NEAR(got[static_cast<std::size_t>(k)], want[static_cast<std::size_t>(k)], 1e-14);
  const Extremes e = sweep(rows, &s, 6);
  EXPECT_LE(e.worst_ratio, 1.0 + 1e-9);
  EXPECT_GT(e.largest_2T_g, 1.0) << "s ln n > 1 makes ssmax rows more sensitive than softmax's 1/(2T)";
  EXPECT_THROW(rows.apply(r.l.data(), nullptr, 0.0, n, 64, T, nullptr, got.data(), scratch.data()), std::logic_error);
}

TEST(SensitivityRows, SparsemaxIsOneLipschitzAndReachesIt) {
  const SensitivityRows rows(kind("sparsemax"));
  const Extremes e = sweep(rows, nullptr, 7);
  EXPECT_LE(e.worst_ratio, 1.0 + 1e-9);
  EXPECT_GT(e.largest_2T_g, 1.5) << "sparsemax's Jacobian is a projection (norm 1), twice softmax's";
  Rng rng(8);
  const Row r = random_row(rng, 30, 1.0);
  std::vector<double> p(30), scratch(static_cast<std::size_t>(rows.scratch_size(30)));
  rows.apply(r.l.data(), nullptr, 0.0, 30, 64, 0.25, nullptr, p.data(), scratch.data());
  double sum = 0;
  int zeros = 0;
  for (const double x : p) {
    EXPECT_GE(x, 0.0);
    sum += x;
    zeros += x == 0.0;
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_GT(zeros, 0);
  EXPECT_NE(rows.bound_text().find("1/T"), std::string::npos);
}

TEST(SensitivityRows, RowsOffTheSimplexHaveNoBound) {
  const SensitivityRows rows(kind("relu"));
  EXPECT_TRUE(std::isinf(rows.bound(10, 1.0, 1e-3, nullptr)));
}

}  // namespace
}  // namespace sinklab::probes
