// causal_mask op: gradient check (finite fill), values, zero gradient on masked entries, errors.
#include "core/ops/masking.h"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "tests/core/test_arrays.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

using testing::check_leaf_gradients;
using testing::Leaf;
using testing::leaf;
using Inputs = std::span<const Tensor>;

TEST(OpsMasking, Gradients) {
  // A finite fill keeps the projected loss finite; -inf is covered through softmax in ops_softmax_test.
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return causal_mask(g, x[0], 0.0f); },
                                   {leaf(Shape{2, 3, 5, 5})}));
}

TEST(OpsMasking, ValuesAndGradient) {
  Graph g;
  std::vector<float> x = {1, 2, 3, 4}, gx(4, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{2, 2});
  const Tensor y = causal_mask(g, t);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(testing::values(y), (std::vector<float>{1, -inf, 3, 4}));
  const std::vector<float> seed = {1, 1, 1, 1};
  g.backward(y, seed);
  EXPECT_EQ(gx, (std::vector<float>{1, 0, 1, 1}));
}

TEST(OpsMasking, Errors) {
  Graph g;
  std::vector<float> x(6);
  EXPECT_THROW(causal_mask(g, Tensor(x.data(), nullptr, Shape{2, 3})), std::invalid_argument);
  EXPECT_THROW(causal_mask(g, Tensor(x.data(), nullptr, Shape{6})), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
