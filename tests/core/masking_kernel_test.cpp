// Causal mask kernels against naive twins and a hand-written 3x3 case.
#include "core/kernels/masking.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

TEST(MaskingKernel, MatchesReference) {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1}, {3, 7}, {130, 17}};  // batch, t
  for (const auto& [batch, t] : shapes) {
    SCOPED_TRACE(::testing::Message() << batch << " x " << t << "x" << t);
    const auto n = static_cast<size_t>(batch * t * t);
    const std::vector<float> x = random_floats(n, 81), dy = random_floats(n, 82);
    std::vector<float> y(n), y_ref(n);
    causal_mask_forward(x.data(), y.data(), batch, t, -5.0f);
    causal_mask_forward_reference(x.data(), y_ref.data(), batch, t, -5.0f);
    EXPECT_TRUE(all_close(y, y_ref, 0.0, 0.0));
    std::vector<float> dx = random_floats(n, 83), dx_ref = dx;
    causal_mask_backward(dy.data(), dx.data(), batch, t);
    causal_mask_backward_reference(dy.data(), dx_ref.data(), batch, t);
    EXPECT_TRUE(all_close(dx, dx_ref, 0.0, 0.0));
  }
}

TEST(MaskingKernel, HandValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> y(9);
  causal_mask_forward(x.data(), y.data(), 1, 3, -inf);
  EXPECT_EQ(y, (std::vector<float>{1, -inf, -inf, 4, 5, -inf, 7, 8, 9}));
  const std::vector<float> dy(9, 1.0f);
  std::vector<float> dx(9, 0.5f);
  causal_mask_backward(dy.data(), dx.data(), 1, 3);
  EXPECT_EQ(dx, (std::vector<float>{1.5f, 0.5f, 0.5f, 1.5f, 1.5f, 0.5f, 1.5f, 1.5f, 1.5f}));
}

}  // namespace
}  // namespace sinklab::kernels
