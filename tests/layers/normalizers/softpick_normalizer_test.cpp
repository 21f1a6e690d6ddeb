// Softpick on rows computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "layers/normalizers/softpick_normalizer.h"

namespace sinklab {
namespace {

// e^s - 1 on [ln 3, 0, -ln 2] = [2, 0, -1/2]: a = [2 / 2.5, 0, 0] (eps 0).
TEST(SoftpickNormalizer, HandComputedRow) {
  const SoftpickNormalizer norm(0.0);
  const double s[3] = {std::log(3.0), 0.0, -std::log(2.0)};
  double a[3];
  norm.forward_row_f64(s, a, RowSpec{2, 3, 3, 0}, nullptr, nullptr);
  EXPECT_NEAR(a[0], 0.8, 1e-15);
  EXPECT_EQ(a[1], 0.0);
  EXPECT_EQ(a[2], 0.0);
}

// A row of scores <= 0 is exactly 0 and gets exactly no gradient, also where e^{-max s} would
// overflow float.
TEST(SoftpickNormalizer, AllNegativeRowIsExactlyZero) {
  const SoftpickNormalizer norm(1e-8);
  for (const float scale : {1.0f, 200.0f}) {
    const float s[3] = {-0.5f * scale, -1.0f * scale, -0.1f * scale}, dprobs[3] = {1.0f, 2.0f, -3.0f};
    float a[3] = {7.0f, 7.0f, 7.0f}, ds[3] = {0.25f, 0.25f, 0.25f};
    norm.forward_row(s, a, RowSpec{2, 3, 3, 0}, nullptr, nullptr);
    norm.backward_row(s, a, dprobs, ds, RowSpec{2, 3, 3, 0}, nullptr, nullptr, nullptr);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(a[k], 0.0f) << k;
      EXPECT_EQ(ds[k], 0.25f) << k;
    }
    EXPECT_EQ(norm.virtual_mass(s, a, RowSpec{2, 3, 3, 0}, nullptr), 1.0f);
  }
}

// ds = e^{s - m} ([u > 0] da - sign(u) <a, da>) / D - [k = argmax] eps <a, da> / D, on
// [ln 3, -ln 2] with eps 0: u = [2, -1/2] / 3, D = 5/6, a = [4/5, 0]; da = [1, 0]: <a, da> = 4/5,
// ds = [1 (1 - 4/5), (1/6)(4/5)] / (5/6) = [6/25, 4/25].
TEST(SoftpickNormalizer, HandComputedGradient) {
  const SoftpickNormalizer norm(0.0);
  const double s[2] = {std::log(3.0), -std::log(2.0)}, da[2] = {1.0, 0.0};
  double a[2], ds[2] = {};
  norm.forward_row_f64(s, a, RowSpec{1, 2, 2, 0}, nullptr, nullptr);
  norm.backward_row_f64(s, a, da, ds, RowSpec{1, 2, 2, 0}, nullptr, nullptr, nullptr);
  EXPECT_NEAR(ds[0], 6.0 / 25, 1e-15);
  EXPECT_NEAR(ds[1], 4.0 / 25, 1e-15);
}

}  // namespace
}  // namespace sinklab
