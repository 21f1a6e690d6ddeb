// Unary ops: gradient checks on contiguous and strided inputs, hand values, no-grad behaviour.
#include "core/ops/unary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/core/test_arrays.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

using testing::check_leaf_gradients;
using testing::Leaf;
using testing::leaf;
using testing::random_floats;
using Inputs = std::span<const Tensor>;
using UnaryOp = Tensor (*)(Graph&, const Tensor&);

Leaf leaf_in(const Shape& s, uint64_t seed, float lo, float hi) {
  return leaf(s, random_floats(static_cast<size_t>(s.numel()), seed, lo, hi));
}

// Values in +-[0.05, 1.5]: away from relu's kink, so central differences with step 1e-2 are valid.
Leaf away_from_zero(const Shape& s, uint64_t seed) {
  Leaf leaf = leaf_in(s, seed, 0.05f, 1.5f);
  for (size_t i = 0; i < leaf.values.size(); i += 2) leaf.values[i] = -leaf.values[i];
  return leaf;
}

struct Case {
  const char* name;
  UnaryOp op;
  float lo, hi;
};

const Case kCases[] = {
    {"exp", exp, -2.0f, 2.0f}, {"log", log, 0.3f, 3.0f},         {"tanh", tanh, -2.0f, 2.0f},
    {"sigmoid", sigmoid, -4.0f, 4.0f}, {"gelu", gelu, -3.0f, 3.0f},         {"gelu_tanh", gelu_tanh, -3.0f, 3.0f},
};

TEST(OpsUnary, Gradients) {
  for (const Case& c : kCases) {
    const UnaryOp op = c.op;
    EXPECT_TRUE(
        check_leaf_gradients([op](Graph& g, Inputs x) { return op(g, x[0]); }, {leaf_in(Shape{3, 7}, 1, c.lo, c.hi)}))
        << c.name;
    EXPECT_TRUE(check_leaf_gradients([op](Graph& g, Inputs x) { return op(g, x[0].transpose(0, 2)); },
                                     {leaf_in(Shape{2, 3, 4}, 2, c.lo, c.hi)}))
        << c.name << " (strided)";
  }
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return relu(g, x[0]); }, {away_from_zero(Shape{4, 5}, 3)}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return relu(g, x[0].transpose(0, 1)); },
                                   {away_from_zero(Shape{4, 5}, 4)}));
}

TEST(OpsUnary, ChainedOpsGradient) {
  EXPECT_TRUE(
      check_leaf_gradients([](Graph& g, Inputs x) { return tanh(g, exp(g, gelu(g, x[0]))); }, {leaf(Shape{11})}));
}

TEST(OpsUnary, HandValues) {
  Graph g;
  std::vector<float> x = {0.0f, 1.0f, -1.0f}, gx(3, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{3});
  EXPECT_EQ(testing::values(exp(g, t))[0], 1.0f);
  EXPECT_NEAR(testing::values(exp(g, t))[2], 0.36787944f, 1e-7);
  EXPECT_NEAR(testing::values(tanh(g, t))[1], 0.7615942f, 1e-6);
  EXPECT_EQ(testing::values(relu(g, t)), (std::vector<float>{0.0f, 1.0f, 0.0f}));
  EXPECT_NEAR(testing::values(gelu(g, t))[1], 0.8413447f, 1e-6);
  EXPECT_NEAR(testing::values(gelu_tanh(g, t))[1], 0.84119199f, 1e-6);
  std::vector<float> e = {std::exp(1.0f)};
  EXPECT_NEAR(testing::values(log(g, Tensor(e.data(), nullptr, Shape{1})))[0], 1.0f, 1e-6);
  // d sigmoid / dx at 0 is 1/4.
  const Tensor s = sigmoid(g, t);
  const std::vector<float> seed = {1.0f, 0.0f, 0.0f};
  g.backward(s, seed);
  EXPECT_FLOAT_EQ(gx[0], 0.25f);
  EXPECT_EQ(gx[1], 0.0f);
}

TEST(OpsUnary, NoGradAndUndefinedInput) {
  Graph g;
  std::vector<float> x(4, 0.5f), gx(4, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{4});
  {
    NoGradGuard guard(g);
    EXPECT_FALSE(gelu(g, t).requires_grad());
  }
  EXPECT_EQ(g.tape_size(), 0u);
  EXPECT_THROW(relu(g, Tensor()), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
