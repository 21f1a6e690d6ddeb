// Softmax op: gradient checks (temperatures, rank 3, after a causal mask), hand values, errors.
#include "core/ops/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/ops/masking.h"
#include "tests/core/test_arrays.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

using testing::check_leaf_gradients;
using testing::Leaf;
using testing::leaf;
using Inputs = std::span<const Tensor>;

TEST(OpsSoftmax, Gradients) {
  for (float t : {1.0f, 0.5f, 3.0f}) {
    EXPECT_TRUE(check_leaf_gradients([t](Graph& g, Inputs x) { return softmax(g, x[0], t); }, {leaf(Shape{2, 3, 5})}))
        << "T = " << t;
  }
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return softmax(g, x[0]); }, {leaf(Shape{1})}));
}

TEST(OpsSoftmax, MaskedAttentionRowGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return softmax(g, causal_mask(g, x[0])); },
                                   {leaf(Shape{2, 4, 4})}));
}

TEST(OpsSoftmax, HandValuesAndRowSums) {
  Graph g;
  std::vector<float> x = {0.0f, std::log(3.0f), 5.0f, 5.0f};
  const Tensor y = softmax(g, Tensor(x.data(), nullptr, Shape{2, 2}));
  const std::vector<float> v = testing::values(y);
  EXPECT_NEAR(v[0], 0.25f, 1e-7);
  EXPECT_NEAR(v[1], 0.75f, 1e-7);
  EXPECT_FLOAT_EQ(v[2], 0.5f);
  // Temperature 0.5 doubles the logits: 1 : 9.
  const std::vector<float> sharp = testing::values(softmax(g, Tensor(x.data(), nullptr, Shape{2, 2}), 0.5f));
  EXPECT_NEAR(sharp[1], 0.9f, 1e-6);
  std::vector<float> big = {1e4f, 1e4f + 2.0f, -1e4f};
  const std::vector<float> b = testing::values(softmax(g, Tensor(big.data(), nullptr, Shape{3})));
  EXPECT_NEAR(b[0] + b[1] + b[2], 1.0f, 1e-6);
  EXPECT_NEAR(b[1], 1.0f / (1.0f + std::exp(-2.0f)), 1e-6);
}

TEST(OpsSoftmax, Errors) {
  Graph g;
  std::vector<float> x(6);
  const Tensor t(x.data(), nullptr, Shape{2, 3});
  EXPECT_THROW(softmax(g, t, 0.0f), std::invalid_argument);
  EXPECT_THROW(softmax(g, t, -1.0f), std::invalid_argument);
  EXPECT_THROW(softmax(g, t, NAN), std::invalid_argument);
  EXPECT_THROW(softmax(g, t.transpose(0, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
