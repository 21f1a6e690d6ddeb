// contiguous(): a dense copy of a strided view, with the gradient flowing back through the view.
#include <gtest/gtest.h>

#include "core/ops/layout_op.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

TEST(OpsLayout, ContiguousCopiesAPermutedViewInRowMajorOrder) {
  float x[24];
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i);
  Graph g;
  const Tensor view = Tensor(x, nullptr, {2, 3, 4}).permute({2, 0, 1});  // [4, 2, 3]
  const Tensor y = contiguous(g, view);
  ASSERT_TRUE(y.is_contiguous());
  EXPECT_EQ(y.shape(), (Shape{4, 2, 3}));
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 3; ++c) EXPECT_EQ(y.at({a, b, c}), x[b * 12 + c * 4 + a]);
}

TEST(OpsLayout, ContiguousGradientReachesTheViewedElements) {
  using Inputs = std::span<const Tensor>;
  // A permuted view, a slice, and a head view: each element of the base gets exactly its own gradient.
  EXPECT_TRUE(testing::check_leaf_gradients(
      [](Graph& g, Inputs in) { return contiguous(g, in[0].reshape({2, 3, 2, 2}).permute({0, 2, 1, 3})); },
      {{Shape{2, 3, 4}, {}}}));
  EXPECT_TRUE(testing::check_leaf_gradients([](Graph& g, Inputs in) { return contiguous(g, in[0].slice(1, 1, 2)); },
                                            {{Shape{3, 4}, {}}}));
}

}  // namespace
}  // namespace sinklab
