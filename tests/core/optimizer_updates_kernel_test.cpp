// The optimizer kernels (core/kernels/optimizer_updates.h) against hand-written loops, and the same
// bits at one thread and at two: they split over threads once they are large.
#include "core/kernels/optimizer_updates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "core/thread_count.h"

namespace sinklab {
namespace {

std::vector<float> normal_floats(int64_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

// Restores the thread count a test changed.
struct ThreadCountGuard {
  int before = set_thread_count(1);
  ~ThreadCountGuard() { set_thread_count(before); }
};

TEST(SumOfSquares, MatchesALongDoubleSumOnEveryLengthAroundTheCuts) {
  // Lengths below, at and above the 8-lane groups, the 64 parts and the threshold for threads (2^15).
  for (int64_t n : {0, 1, 7, 8, 9, 63, 511, 513, 1000, 32767, 32768, 32769, 100003}) {
    const std::vector<float> x = normal_floats(n, static_cast<uint64_t>(n) + 1);
    long double exact = 0.0L;
    for (float v : x) exact += static_cast<long double>(v) * v;
    const double got = kernels::sum_of_squares(x.data(), n);
    EXPECT_NEAR(got, static_cast<double>(exact), 1e-13 * static_cast<double>(exact) + 1e-300) << n;
  }
  const float three_four[] = {3.0f, 4.0f, 0.0f, -12.0f};
  EXPECT_EQ(kernels::sum_of_squares(three_four, 4), 169.0);
}

TEST(SumOfSquares, IsTheSameBitsOnOneThreadAndOnTwo) {
  const ThreadCountGuard guard;
  const int64_t n = 3'000'017;  // above the threshold for threads, not a multiple of the parts
  std::vector<float> x = normal_floats(n, 11);
  // Large and small values mixed, so that a different order of additions would show in the bits.
  for (int64_t i = 0; i < n; i += 97) x[static_cast<size_t>(i)] *= 1.0e4f;
  set_thread_count(1);
  const double one = kernels::sum_of_squares(x.data(), n);
  set_thread_count(2);
  const double two = kernels::sum_of_squares(x.data(), n);
  EXPECT_EQ(one, two);
}

TEST(AdamUpdate, MatchesTheFormulaAndIsTheSameBitsOnOneThreadAndOnTwo) {
  const ThreadCountGuard guard;
  const int64_t n = 100'003;
  const std::vector<float> g = normal_floats(n, 3), p0 = normal_floats(n, 4);
  std::vector<float> m0 = normal_floats(n, 5), v0 = normal_floats(n, 6);
  for (float& v : v0) v = v * v;  // a second moment is never negative
  const kernels::AdamStep s{0.9f, 0.95f, 1e-8f, 0.01f, 0.999f, 3e-3f, 0.2f};
  std::vector<std::vector<float>> p(2, p0), m(2, m0), v(2, v0);
  for (int threads : {1, 2}) {
    set_thread_count(threads);
    const size_t t = static_cast<size_t>(threads - 1);
    kernels::adam_update(p[t].data(), g.data(), m[t].data(), v[t].data(), n, s);
  }
  EXPECT_EQ(p[0], p[1]);
  EXPECT_EQ(m[0], m[1]);
  EXPECT_EQ(v[0], v[1]);
  for (int64_t i = 0; i < n; i += 1009) {
    const size_t k = static_cast<size_t>(i);
    const double gi = g[k] + 0.01 * p0[k];
    const double mi = 0.9 * m0[k] + 0.1 * gi, vi = 0.95 * v0[k] + 0.05 * gi * gi;
    const double pi = p0[k] * 0.999 - 3e-3 * mi / (std::sqrt(vi) / 0.2 + 1e-8);
    EXPECT_NEAR(m[0][k], mi, 1e-6 * (1 + std::fabs(mi))) << i;
    EXPECT_NEAR(v[0][k], vi, 1e-6 * (1 + vi)) << i;
    EXPECT_NEAR(p[0][k], pi, 1e-5 * (1 + std::fabs(pi))) << i;
  }
}

}  // namespace
}  // namespace sinklab
