// Row softmax against its naive twin (backward through the explicit Jacobian), plus stability cases.
#include "core/kernels/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

TEST(SoftmaxKernel, MatchesReference) {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1}, {3, 17}, {11, 5}, {1, 1001}, {517, 65}, {64, 16}};
  for (const auto& [rows, cols] : shapes) {
    for (float inv_t : {1.0f, 2.0f, 0.25f}) {
      SCOPED_TRACE(::testing::Message() << rows << "x" << cols << " 1/T=" << inv_t);
      const auto n = static_cast<size_t>(rows * cols);
      const std::vector<float> x = random_floats(n, 41, -3.0f, 3.0f), dy = random_floats(n, 42);
      std::vector<float> y(n), y_ref(n);
      softmax_forward(x.data(), y.data(), rows, cols, inv_t);
      softmax_forward_reference(x.data(), y_ref.data(), rows, cols, inv_t);
      EXPECT_TRUE(all_close(y, y_ref, 1e-5, 1e-7));
      std::vector<float> dx = random_floats(n, 43), dx_ref = dx;
      softmax_backward(y.data(), dy.data(), dx.data(), rows, cols, inv_t);
      softmax_backward_reference(y_ref.data(), dy.data(), dx_ref.data(), rows, cols, inv_t);
      EXPECT_TRUE(all_close(dx, dx_ref, 1e-5, 1e-6));
    }
  }
}

TEST(SoftmaxKernel, HandValuesAndTemperature) {
  const std::vector<float> x = {0.0f, std::log(3.0f)};
  std::vector<float> y(2);
  softmax_forward(x.data(), y.data(), 1, 2, 1.0f);
  EXPECT_NEAR(y[0], 0.25f, 1e-7);
  EXPECT_NEAR(y[1], 0.75f, 1e-7);
  // T = 0.5 doubles the logits: weights 1 : 9.
  softmax_forward(x.data(), y.data(), 1, 2, 2.0f);
  EXPECT_NEAR(y[0], 0.1f, 1e-7);
  EXPECT_NEAR(y[1], 0.9f, 1e-7);
  // d y0 / d x0 = y0 (1 - y0) / T = 0.09 * 2 with T = 0.5.
  const std::vector<float> dy = {1.0f, 0.0f};
  std::vector<float> dx(2, 0.0f);
  softmax_backward(y.data(), dy.data(), dx.data(), 1, 2, 2.0f);
  EXPECT_NEAR(dx[0], 0.18f, 1e-6);
  EXPECT_NEAR(dx[1], -0.18f, 1e-6);
}

TEST(SoftmaxKernel, LargeLogitsAndMaskedEntries) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1000.0f, 1001.0f, -inf, /* row 2: fully masked */ -inf, -inf, -inf};
  std::vector<float> y(6, 123.0f);
  softmax_forward(x.data(), y.data(), 2, 3, 1.0f);
  EXPECT_NEAR(y[0], 1.0f / (1.0f + std::exp(1.0f)), 1e-6);
  EXPECT_NEAR(y[1], 1.0f / (1.0f + std::exp(-1.0f)), 1e-6);
  EXPECT_EQ(y[2], 0.0f);
  for (int k = 3; k < 6; ++k) EXPECT_EQ(y[static_cast<size_t>(k)], 0.0f);
}

}  // namespace
}  // namespace sinklab::kernels
