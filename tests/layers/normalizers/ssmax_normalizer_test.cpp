// Scalable-Softmax on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "layers/normalizers/ssmax_normalizer.h"

namespace sinklab {
namespace {

// Row 2 sees n = 3 keys; s_h = 1 / ln 3 makes the logit scale 1: plain softmax, [0, ln 2, ln 5] -> [1, 2, 5] / 8.
TEST(SsmaxNormalizer, UnitScaleIsSoftmax) {
  const SsmaxNormalizer norm(0.43);
  const double s[3] = {0.0, std::log(2.0), std::log(5.0)}, scale = 1.0 / std::log(3.0);
  double a[3];
  norm.forward_row_f64(s, a, RowSpec{2, 3, 16, 0}, &scale, nullptr);
  EXPECT_NEAR(a[0], 1.0 / 8, 1e-15);
  EXPECT_NEAR(a[1], 2.0 / 8, 1e-15);
  EXPECT_NEAR(a[2], 5.0 / 8, 1e-15);
}

// The scale comes from the query position (RowSpec::query), not the row length handed over: a row
// with one leading extra slot (visible = query + 2) still uses ln(query + 1).
TEST(SsmaxNormalizer, LogOfTheQueryPositionNotTheRowLength) {
  const SsmaxNormalizer norm(0.43);
  const double s[3] = {0.0, 0.0, 1.0}, scale = 1.0 / std::log(2.0);
  double a[3];
  norm.forward_row_f64(s, a, RowSpec{1, 3, 16, 0}, &scale, nullptr);
  const double e = std::exp(1.0);
  EXPECT_NEAR(a[2], e / (2 + e), 1e-15);
}

// Row 0: ln 1 = 0 -> one key with weight 1, and no gradient for the scale.
TEST(SsmaxNormalizer, FirstRowIsOneAndScaleGetsNoGradient) {
  const SsmaxNormalizer norm(0.43);
  const double s[1] = {3.0}, scale = 0.43, da[1] = {2.0};
  double a[1], ds[1] = {0.0}, dscale = 0.0;
  norm.forward_row_f64(s, a, RowSpec{0, 1, 16, 0}, &scale, nullptr);
  EXPECT_EQ(a[0], 1.0);
  norm.backward_row_f64(s, a, da, ds, RowSpec{0, 1, 16, 0}, &scale, &dscale, nullptr);
  EXPECT_EQ(ds[0], 0.0);
  EXPECT_EQ(dscale, 0.0);
  EXPECT_FLOAT_EQ(norm.initial_param(0), 0.43f);
  EXPECT_EQ(norm.param_name(), "ssmax_scale");
}

}  // namespace
}  // namespace sinklab
