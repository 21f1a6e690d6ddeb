// Rng: the documented algorithm (known answers computed independently from the xoshiro256** and
// SplitMix64 definitions), reproducibility, state save/restore, ranges and distribution moments.
#include "core/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace sinklab {
namespace {

TEST(Rng, KnownAnswersOfTheDocumentedAlgorithm) {
  Rng zero(0);
  EXPECT_EQ(zero.next(), 0x99ec5f36cb75f2b4ULL);
  EXPECT_EQ(zero.next(), 0xbf6e1f784956452aULL);
  EXPECT_EQ(zero.next(), 0x1a5f849d4933e6e0ULL);
  Rng r42(42);
  EXPECT_EQ(r42.next(), 0x15780b2e0c2ec716ULL);
  EXPECT_EQ(r42.next(), 0x6104d9866d113a7eULL);
  EXPECT_EQ(r42.next(), 0xae17533239e499a1ULL);
}

TEST(Rng, UniformIsTheTop24BitsOfNext) {
  Rng a(7), b(7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.uniform(), static_cast<float>(b.next() >> 40) * 0x1.0p-24f);
}

TEST(Rng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(123), b(123), c(124);
  int equal_to_c = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t va = a.next();
    EXPECT_EQ(va, b.next());
    equal_to_c += va == c.next();
  }
  EXPECT_EQ(equal_to_c, 0);
}

TEST(Rng, StateSaveRestoreContinuesIdentically) {
  Rng rng(99);
  for (int i = 0; i < 5; ++i) rng.uniform();
  rng.normal();  // leaves the second Box-Muller value cached: the state must carry it
  const RngState saved = rng.state();
  std::vector<float> expected;
  for (int i = 0; i < 50; ++i) expected.push_back(i % 3 == 0 ? rng.normal() : rng.uniform());
  Rng restored(1);
  restored.set_state(saved);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(i % 3 == 0 ? restored.normal() : restored.uniform(), expected[static_cast<size_t>(i)]) << i;
}

TEST(Rng, UniformRanges) {
  Rng rng(5);
  float lo = 1.0f, hi = 0.0f;
  for (int i = 0; i < 100000; ++i) {
    const float u = rng.uniform();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
    const float v = rng.uniform(-3.0f, 2.0f);
    ASSERT_GE(v, -3.0f);
    ASSERT_LE(v, 2.0f);
  }
  EXPECT_LT(lo, 1e-3f);  // the range is actually covered
  EXPECT_GT(hi, 1.0f - 1e-3f);
}

TEST(Rng, NormalMoments) {
  Rng rng(11);
  const int n = 100000;
  double s = 0.0, ss = 0.0;
  for (int i = 0; i < n; ++i) {
    const double v = rng.normal(2.0f, 0.5f);
    s += v;
    ss += v * v;
  }
  const double mean = s / n, sd = std::sqrt(ss / n - mean * mean);
  // Standard errors: 0.5 / sqrt(1e5) = 0.0016 for the mean, ~0.0011 for the std: 5 sigma bounds.
  EXPECT_NEAR(mean, 2.0, 0.008);
  EXPECT_NEAR(sd, 0.5, 0.006);
}

TEST(Rng, BelowIsInRangeAndRoughlyUniform) {
  Rng rng(3);
  const uint64_t k = 7;
  const int n = 70000;
  std::vector<int> counts(k, 0);
  for (int i = 0; i < n; ++i) {
    const uint64_t v = rng.below(k);
    ASSERT_LT(v, k);
    ++counts[v];
  }
  // Chi-square with 6 degrees of freedom: P(chi2 > 22.46) = 0.001.
  double chi2 = 0.0;
  const double expected = static_cast<double>(n) / k;
  for (int c : counts) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 22.46);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rng.below(1), 0u);
  // A bound that is not a power of two and close to 2^64 still stays in range.
  const uint64_t big = (uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 1000; ++i) ASSERT_LT(rng.below(big), big);
}

TEST(Rng, SplitGivesADifferentReproducibleStream) {
  Rng a(17), b(17);
  Rng ca = a.split(), cb = b.split();
  EXPECT_EQ(ca.next(), cb.next());  // reproducible
  Rng parent(17);
  parent.next();  // split consumed one value of the parent
  EXPECT_EQ(a.next(), parent.next());
  EXPECT_NE(ca.next(), a.next());
}

TEST(Rng, FillHelpersMatchSingleDraws) {
  Rng a(8), b(8);
  std::vector<float> u(33), n(33);
  a.fill_uniform(u, -1.0f, 1.0f);
  a.fill_normal(n, 0.0f, 2.0f);
  for (float v : u) EXPECT_EQ(v, b.uniform(-1.0f, 1.0f));
  for (float v : n) EXPECT_EQ(v, b.normal(0.0f, 2.0f));
}

}  // namespace
}  // namespace sinklab
