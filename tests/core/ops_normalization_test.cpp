// LayerNorm / RMSNorm ops: gradient checks with and without affine parts, hand values, errors.
#include "core/ops/normalization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
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

// Rows with a clear spread (inputs in [-2, 2], 8 columns): the normalization is smooth at this scale,
// so central differences with the default step are accurate.
Leaf input(const Shape& s, uint64_t seed) {
  return leaf(s, random_floats(static_cast<size_t>(s.numel()), seed, -2.0f, 2.0f));
}
Leaf weight(int64_t c, uint64_t seed) {
  return leaf(Shape{c}, random_floats(static_cast<size_t>(c), seed, 0.5f, 1.5f));
}

TEST(OpsNormalization, LayerNormGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return layer_norm(g, x[0], x[1], x[2]); },
                                   {input(Shape{2, 3, 8}, 1), weight(8, 2), leaf(Shape{8})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return layer_norm(g, x[0], Tensor(), Tensor()); },
                                   {input(Shape{5, 8}, 3)}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return layer_norm(g, x[0], x[1], Tensor()); },
                                   {input(Shape{4, 8}, 4), weight(8, 5)}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return layer_norm(g, x[0], Tensor(), x[1]); },
                                   {input(Shape{4, 8}, 6), leaf(Shape{8})}));
}

TEST(OpsNormalization, RmsNormGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return rms_norm(g, x[0], x[1]); },
                                   {input(Shape{2, 3, 8}, 7), weight(8, 8)}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return rms_norm(g, x[0], Tensor()); },
                                   {input(Shape{6, 8}, 9)}));
}

TEST(OpsNormalization, FrozenInputStillGivesParameterGradients) {
  // x without a gradient buffer (data), weight and bias tracked.
  Leaf x = input(Shape{3, 8}, 10);
  x.requires_grad = false;
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs t) { return layer_norm(g, t[0], t[1], t[2]); },
                                   {x, weight(8, 11), leaf(Shape{8})}));
}

TEST(OpsNormalization, HandValues) {
  Graph g;
  std::vector<float> x = {1, 2, 3}, w = {1, 2, 3}, b = {0, 1, 0};
  const Tensor tx(x.data(), nullptr, Shape{1, 3});
  const std::vector<float> y = testing::values(
      layer_norm(g, tx, Tensor(w.data(), nullptr, Shape{3}), Tensor(b.data(), nullptr, Shape{3}), 0.0f));
  EXPECT_NEAR(y[0], -1.2247449f, 1e-6);
  EXPECT_NEAR(y[1], 1.0f, 1e-6);
  EXPECT_NEAR(y[2], 3.6742346f, 1e-5);
  std::vector<float> x2 = {3, 4};
  const std::vector<float> r = testing::values(rms_norm(g, Tensor(x2.data(), nullptr, Shape{2}), Tensor(), 0.0f));
  EXPECT_NEAR(r[0], 0.8485281f, 1e-6);
  EXPECT_NEAR(r[1], 1.1313708f, 1e-6);
}

TEST(OpsNormalization, Errors) {
  Graph g;
  std::vector<float> x(12), w(5);
  const Tensor tx(x.data(), nullptr, Shape{3, 4});
  try {
    layer_norm(g, tx, Tensor(w.data(), nullptr, Shape{5}), Tensor());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("layer_norm"), std::string::npos) << msg;
    EXPECT_NE(msg.find("weight"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[5]"), std::string::npos) << msg;
  }
  EXPECT_THROW(rms_norm(g, tx, Tensor(w.data(), nullptr, Shape{5})), std::invalid_argument);
  EXPECT_THROW(layer_norm(g, tx.transpose(0, 1), Tensor(), Tensor()), std::invalid_argument);
  EXPECT_THROW(layer_norm(g, tx, Tensor(), Tensor(), -1.0f), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
