// The learned sink logit on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "layers/normalizers/sink_logit_normalizer.h"

namespace sinklab {
namespace {

// S = -inf closes the slot: plain softmax, [0, ln 3] -> [1/4, 3/4].
TEST(SinkLogitNormalizer, MinusInfinityIsSoftmax) {
  const SinkLogitNormalizer norm(0.0);
  const double s[2] = {0.0, std::log(3.0)}, S = -std::numeric_limits<double>::infinity();
  double a[2];
  norm.forward_row_f64(s, a, RowSpec{1, 2, 2, 0}, &S, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 0.25);
  EXPECT_DOUBLE_EQ(a[1], 0.75);
}

// S = ln 2 on [0, 0]: 1 / (2 + 1 + 1) per key, v = 1/2. With da = [1, 0]: <a, da> = 1/4,
// dS = -v <a, da> = -1/8 (= d/dS of 1 / (e^S + 2) at e^S = 2), ds = a (da - 1/4) = [3/16, -1/16].
TEST(SinkLogitNormalizer, SlotShareAndGradientOfTheSinkLogit) {
  const SinkLogitNormalizer norm(0.0);
  const double s[2] = {0.0, 0.0}, S = std::log(2.0), da[2] = {1.0, 0.0};
  double a[2], ds[2] = {0.0, 0.0}, dS = 0.0;
  norm.forward_row_f64(s, a, RowSpec{1, 2, 2, 0}, &S, nullptr);
  EXPECT_DOUBLE_EQ(a[0], 0.25);
  norm.backward_row_f64(s, a, da, ds, RowSpec{1, 2, 2, 0}, &S, &dS, nullptr);
  EXPECT_DOUBLE_EQ(dS, -0.125);
  EXPECT_DOUBLE_EQ(ds[0], 3.0 / 16);
  EXPECT_DOUBLE_EQ(ds[1], -1.0 / 16);
  const float sf[2] = {0.0f, 0.0f}, Sf = std::log(2.0f), af[2] = {};
  EXPECT_NEAR(norm.virtual_mass(sf, af, RowSpec{1, 2, 2, 0}, &Sf), 0.5f, 1e-6f);
  EXPECT_EQ(norm.initial_param(0), 0.0f);
  EXPECT_EQ(norm.param_name(), "sink_logit");
}

// A sink logit far above the scores takes (almost) everything, without overflow.
TEST(SinkLogitNormalizer, LargeSinkLogitStaysFinite) {
  const SinkLogitNormalizer norm(0.0);
  const float s[2] = {0.0f, 1.0f}, S = 80.0f;
  float a[2];
  norm.forward_row(s, a, RowSpec{1, 2, 2, 0}, &S, nullptr);
  EXPECT_GE(a[0], 0.0f);
  EXPECT_LT(a[1], 1e-30f);
  EXPECT_NEAR(norm.virtual_mass(s, a, RowSpec{1, 2, 2, 0}, &S), 1.0f, 1e-6f);
}

}  // namespace
}  // namespace sinklab
