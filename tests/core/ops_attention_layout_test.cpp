// repeat_heads (grouped-query attention's key/value heads) and mask_outside_window (the sliding window):
// values by hand and finite-difference gradients with a random-projection loss.
#include "core/ops/attention_layout_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/ops/unary.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

namespace st = sinklab::testing;

TEST(OpsAttentionLayout, RepeatHeadsGivesEveryQueryHeadItsGroupsHead) {
  Graph g;
  std::vector<float> storage;
  const Tensor x = st::random_tensor(storage, Shape{2, 1, 3, 2}, 7);
  const Tensor y = repeat_heads(g, x, 3);
  ASSERT_EQ(y.shape(), (Shape{6, 1, 3, 2}));
  for (int64_t h = 0; h < 6; ++h)
    for (int64_t t = 0; t < 3; ++t)
      for (int64_t d = 0; d < 2; ++d) EXPECT_EQ(y.at({h, 0, t, d}), x.at({h / 3, 0, t, d}));
}

TEST(OpsAttentionLayout, RepeatHeadsGradientSumsTheGroup) {
  EXPECT_TRUE(st::check_leaf_gradients([](Graph& g, std::span<const Tensor> in) { return repeat_heads(g, in[0], 2); },
                                       {{Shape{3, 2, 4, 5}, {}}}));
}

TEST(OpsAttentionLayout, WindowMasksKeysTooFarBack) {
  Graph g;
  std::vector<float> storage;
  const Tensor s = st::random_tensor(storage, Shape{1, 1, 5, 5}, 3);
  const Tensor y = mask_outside_window(g, s, 2);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      if (i - j >= 2) EXPECT_TRUE(std::isinf(y.at({0, 0, i, j})) && y.at({0, 0, i, j}) < 0) << i << "," << j;
      else EXPECT_EQ(y.at({0, 0, i, j}), s.at({0, 0, i, j})) << i << "," << j;
    }
}

TEST(OpsAttentionLayout, WindowGradientPassesOnlyKeptScores) {
  // -inf entries would poison a projection loss: the check goes through exp(-inf) = 0, as softmax does.
  EXPECT_TRUE(st::check_leaf_gradients(
      [](Graph& g, std::span<const Tensor> in) { return exp(g, mask_outside_window(g, in[0], 3)); },
      {{Shape{2, 1, 6, 6}, {}}}));
}

}  // namespace
}  // namespace sinklab
