// LayerNorm / RMSNorm kernels against naive twins whose input gradient goes through the full row
// Jacobian; with and without the affine parts; odd and large (parallel) sizes.
#include "core/kernels/normalization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

const std::pair<int64_t, int64_t> kShapes[] = {{1, 1}, {3, 7}, {17, 33}, {1, 1001}, {520, 64}};

TEST(NormalizationKernel, LayerNormMatchesReference) {
  for (const auto& [rows, cols] : kShapes) {
    for (int affine = 0; affine < 4; ++affine) {  // bit 0: weight, bit 1: bias
      SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " affine=" << affine);
      const auto n = static_cast<size_t>(rows * cols), c = static_cast<size_t>(cols), r = static_cast<size_t>(rows);
      const std::vector<float> x = random_floats(n, 51, -2.0f, 2.0f), dy = random_floats(n, 52);
      const std::vector<float> w = random_floats(c, 53, 0.5f, 1.5f), b = random_floats(c, 54);
      const float* wp = affine & 1 ? w.data() : nullptr;
      const float* bp = affine & 2 ? b.data() : nullptr;
      std::vector<float> y(n), y_ref(n), mean(r), rstd(r), mean_ref(r), rstd_ref(r);
      layer_norm_forward(x.data(), wp, bp, y.data(), mean.data(), rstd.data(), rows, cols, 1e-5f);
      layer_norm_forward_reference(x.data(), wp, bp, y_ref.data(), mean_ref.data(), rstd_ref.data(), rows, cols, 1e-5f);
      EXPECT_TRUE(all_close(y, y_ref, 1e-5, 2e-5));
      EXPECT_TRUE(all_close(mean, mean_ref, 1e-5, 1e-6));
      EXPECT_TRUE(all_close(rstd, rstd_ref, 1e-5, 1e-6));
      std::vector<float> dx = random_floats(n, 55), dx_ref = dx, dw = random_floats(c, 56), dw_ref = dw;
      std::vector<float> db = random_floats(c, 57), db_ref = db;
      layer_norm_backward(x.data(), wp, mean.data(), rstd.data(), dy.data(), dx.data(),
                          affine & 1 ? dw.data() : nullptr, affine & 2 ? db.data() : nullptr, rows, cols);
      layer_norm_backward_reference(x.data(), wp, 1e-5f, dy.data(), dx_ref.data(), affine & 1 ? dw_ref.data() : nullptr,
                                    affine & 2 ? db_ref.data() : nullptr, rows, cols);
      EXPECT_TRUE(all_close(dx, dx_ref, 1e-4, 2e-5));
      EXPECT_TRUE(all_close(dw, dw_ref, 1e-4, 1e-4));  // sums over up to 520 rows
      EXPECT_TRUE(all_close(db, db_ref, 1e-4, 1e-4));
    }
  }
}

TEST(NormalizationKernel, RmsNormMatchesReference) {
  for (const auto& [rows, cols] : kShapes) {
    for (bool with_weight : {false, true}) {
      SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " weight=" << with_weight);
      const auto n = static_cast<size_t>(rows * cols), c = static_cast<size_t>(cols), r = static_cast<size_t>(rows);
      const std::vector<float> x = random_floats(n, 61, -2.0f, 2.0f), dy = random_floats(n, 62);
      const std::vector<float> w = random_floats(c, 63, 0.5f, 1.5f);
      const float* wp = with_weight ? w.data() : nullptr;
      std::vector<float> y(n), y_ref(n), rstd(r), rstd_ref(r);
      rms_norm_forward(x.data(), wp, y.data(), rstd.data(), rows, cols, 1e-6f);
      rms_norm_forward_reference(x.data(), wp, y_ref.data(), rstd_ref.data(), rows, cols, 1e-6f);
      EXPECT_TRUE(all_close(y, y_ref, 1e-5, 2e-5));
      EXPECT_TRUE(all_close(rstd, rstd_ref, 1e-5, 1e-6));
      std::vector<float> dx = random_floats(n, 65), dx_ref = dx, dw = random_floats(c, 66), dw_ref = dw;
      rms_norm_backward(x.data(), wp, rstd.data(), dy.data(), dx.data(), with_weight ? dw.data() : nullptr, rows, cols);
      rms_norm_backward_reference(x.data(), wp, 1e-6f, dy.data(), dx_ref.data(), with_weight ? dw_ref.data() : nullptr,
                                  rows, cols);
      EXPECT_TRUE(all_close(dx, dx_ref, 1e-4, 2e-5));
      EXPECT_TRUE(all_close(dw, dw_ref, 1e-4, 1e-4));
    }
  }
}

TEST(NormalizationKernel, HandValues) {
  // LayerNorm of [1, 2, 3]: mean 2, var 2/3 -> [-1.2247, 0, 1.2247]; then * [1, 2, 3] + [0, 1, 0].
  const std::vector<float> x = {1, 2, 3}, w = {1, 2, 3}, b = {0, 1, 0};
  std::vector<float> y(3);
  float mean = 0, rstd = 0;
  layer_norm_forward(x.data(), w.data(), b.data(), y.data(), &mean, &rstd, 1, 3, 0.0f);
  EXPECT_FLOAT_EQ(mean, 2.0f);
  EXPECT_NEAR(rstd, 1.2247449f, 1e-6);
  EXPECT_NEAR(y[0], -1.2247449f, 1e-6);
  EXPECT_NEAR(y[1], 1.0f, 1e-6);
  EXPECT_NEAR(y[2], 3.0f * 1.2247449f, 1e-5);
  // RMSNorm of [3, 4]: rms = sqrt(12.5).
  const std::vector<float> x2 = {3, 4};
  std::vector<float> y2(2);
  rms_norm_forward(x2.data(), nullptr, y2.data(), &rstd, 1, 2, 0.0f);
  EXPECT_NEAR(y2[0], 3.0f / std::sqrt(12.5f), 1e-6);
  EXPECT_NEAR(y2[1], 4.0f / std::sqrt(12.5f), 1e-6);
  // A constant row has zero LayerNorm gradient w.r.t. a constant shift: sum(dx) = 0 for any dy.
  const std::vector<float> dy = {0.3f, -1.0f, 2.0f};
  std::vector<float> dx(3, 0.0f);
  layer_norm_forward(x.data(), nullptr, nullptr, y.data(), &mean, &rstd, 1, 3, 1e-5f);
  layer_norm_backward(x.data(), nullptr, &mean, &rstd, dy.data(), dx.data(), nullptr, nullptr, 1, 3);
  EXPECT_NEAR(dx[0] + dx[1] + dx[2], 0.0f, 1e-6);
}

}  // namespace
}  // namespace sinklab::kernels
