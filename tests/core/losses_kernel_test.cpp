// Loss kernels against naive twins, hand values, and the NaN rule of max_abs_error.
#include "core/kernels/losses.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

TEST(LossesKernel, MseMatchesReference) {
  struct Case {
    ElementwiseLayout layout;
    size_t pred_storage, target_storage;
  };
  const Case cases[] = {
      {flat_layout(1), 1, 1},
      {flat_layout(1001), 1001, 1001},
      {flat_layout(70001), 70001, 70001},
      // pred is a transposed [13, 7] view; target contiguous.
      {binary_layout(Shape{13, 7}, Shape{13, 7}, Strides{1, 13, 0, 0}, Shape{13, 7}, Strides{7, 1, 0, 0}), 91, 91},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.layout.numel());
    const std::vector<float> p = random_floats(c.pred_storage, 91), t = random_floats(c.target_storage, 92);
    EXPECT_NEAR(mse_loss_forward(p.data(), t.data(), c.layout),
                mse_loss_forward_reference(p.data(), t.data(), c.layout), 1e-6);
    std::vector<float> dp = random_floats(c.pred_storage, 93), dp_ref = dp, dt = random_floats(c.target_storage, 94);
    std::vector<float> dt_ref = dt;
    mse_loss_backward(p.data(), t.data(), 0.7f, dp.data(), dt.data(), c.layout);
    mse_loss_backward_reference(p.data(), t.data(), 0.7f, dp_ref.data(), dt_ref.data(), c.layout);
    EXPECT_TRUE(all_close(dp, dp_ref));
    EXPECT_TRUE(all_close(dt, dt_ref));
  }
}

TEST(LossesKernel, CrossEntropyMatchesReference) {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1}, {7, 13}, {300, 129}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(::testing::Message() << rows << "x" << cols);
    const auto n = static_cast<size_t>(rows * cols);
    const std::vector<float> x = random_floats(n, 95, -4.0f, 4.0f);
    std::vector<int32_t> targets(static_cast<size_t>(rows));
    Rng rng(96);
    for (auto& t : targets) t = static_cast<int32_t>(rng.below(static_cast<uint64_t>(cols)));
    std::vector<float> lse(static_cast<size_t>(rows));
    EXPECT_NEAR(cross_entropy_forward(x.data(), targets.data(), lse.data(), rows, cols),
                cross_entropy_forward_reference(x.data(), targets.data(), rows, cols), 2e-6);
    std::vector<float> dx = random_floats(n, 97), dx_ref = dx;
    cross_entropy_backward(x.data(), targets.data(), lse.data(), 1.3f, dx.data(), rows, cols);
    cross_entropy_backward_reference(x.data(), targets.data(), 1.3f, dx_ref.data(), rows, cols);
    EXPECT_TRUE(all_close(dx, dx_ref, 1e-5, 1e-6));
  }
}

TEST(LossesKernel, HandValues) {
  const std::vector<float> p = {1, 2}, t = {0, 0};
  EXPECT_FLOAT_EQ(mse_loss_forward(p.data(), t.data(), flat_layout(2)), 2.5f);
  std::vector<float> dp(2, 0.0f), dt(2, 0.0f);
  mse_loss_backward(p.data(), t.data(), 1.0f, dp.data(), dt.data(), flat_layout(2));
  EXPECT_EQ(dp, (std::vector<float>{1, 2}));  // 2 (p - t) / n
  EXPECT_EQ(dt, (std::vector<float>{-1, -2}));
  // Uniform logits over 4 classes: loss log 4; gradient (1/4 - onehot) / rows.
  const std::vector<float> x(8, 0.5f);
  const std::vector<int32_t> targets = {1, 3};
  std::vector<float> lse(2), dx(8, 0.0f);
  EXPECT_NEAR(cross_entropy_forward(x.data(), targets.data(), lse.data(), 2, 4), std::log(4.0f), 1e-6);
  cross_entropy_backward(x.data(), targets.data(), lse.data(), 1.0f, dx.data(), 2, 4);
  EXPECT_NEAR(dx[0], 0.125f, 1e-7);
  EXPECT_NEAR(dx[1], -0.375f, 1e-7);
  // Large logits stay finite (log-sum-exp).
  const std::vector<float> big = {1000.0f, 0.0f};
  const std::vector<int32_t> t0 = {1};
  EXPECT_NEAR(cross_entropy_forward(big.data(), t0.data(), lse.data(), 1, 2), 1000.0f, 1e-3);
}

TEST(LossesKernel, MaxAbsError) {
  const std::vector<float> a = {1.0f, -3.0f, 2.0f}, b = {1.5f, 1.0f, 2.0f};
  EXPECT_FLOAT_EQ(max_abs_error_forward(a.data(), b.data(), flat_layout(3)), 4.0f);
  EXPECT_FLOAT_EQ(max_abs_error_forward_reference(a.data(), b.data(), flat_layout(3)), 4.0f);
  EXPECT_EQ(max_abs_error_forward(a.data(), b.data(), flat_layout(0)), 0.0f);
  // A NaN anywhere, even before a larger finite difference, must come out as NaN.
  const std::vector<float> n = {std::nanf(""), 100.0f, 0.0f};
  EXPECT_TRUE(std::isnan(max_abs_error_forward(n.data(), b.data(), flat_layout(3))));
  const std::vector<float> n2 = {0.0f, 100.0f, std::nanf("")};
  EXPECT_TRUE(std::isnan(max_abs_error_forward(n2.data(), b.data(), flat_layout(3))));
  const std::vector<float> large = random_floats(50001, 98), other = random_floats(50001, 99);
  EXPECT_EQ(max_abs_error_forward(large.data(), other.data(), flat_layout(50001)),
            max_abs_error_forward_reference(large.data(), other.data(), flat_layout(50001)));
}

}  // namespace
}  // namespace sinklab::kernels
