// Elementwise ops: finite-difference gradient checks (broadcast, strided, rank-4 cases), hand values,
// error messages, and no-grad behaviour.
#include "core/ops/elementwise.h"

#include <gtest/gtest.h>

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

Leaf positive_leaf(const Shape& s, uint64_t seed, float lo = 0.5f, float hi = 1.5f) {
  return leaf(s, random_floats(static_cast<size_t>(s.numel()), seed, lo, hi));
}

TEST(OpsElementwise, AddBroadcastGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return add(g, x[0], x[1]); },
                                   {leaf(Shape{2, 3, 4}), leaf(Shape{4})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return add(g, x[0], x[1]); },
                                   {leaf(Shape{2, 1, 4}), leaf(Shape{3, 1})}));
}

TEST(OpsElementwise, SubBroadcastGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return sub(g, x[0], x[1]); },
                                   {leaf(Shape{4}), leaf(Shape{2, 3, 4})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return sub(g, x[0], x[1]); },
                                   {leaf(Shape{2, 1, 3, 1}), leaf(Shape{4, 1, 5})}));  // rank 4 both ways
}

TEST(OpsElementwise, MulBroadcastAndStridedGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mul(g, x[0], x[1]); },
                                   {leaf(Shape{2, 1, 4}), leaf(Shape{3, 1})}));
  // a is a transposed view of a [4, 3] leaf; b broadcasts over rows.
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mul(g, x[0].transpose(0, 1), x[1]); },
                                   {leaf(Shape{4, 3}), leaf(Shape{1, 4})}));
  // Both views: a permuted rank-3 leaf times a column slice.
  EXPECT_TRUE(check_leaf_gradients(
      [](Graph& g, Inputs x) { return mul(g, x[0].permute({2, 0, 1}), x[1].slice(1, 1, 3)); },
      {leaf(Shape{2, 3, 5}), leaf(Shape{2, 5})}));
}

TEST(OpsElementwise, MulOfATensorWithItselfGetsBothContributions) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mul(g, x[0], x[0]); }, {leaf(Shape{3, 5})}));
}

TEST(OpsElementwise, DivGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return div(g, x[0], x[1]); },
                                   {leaf(Shape{2, 3, 4}), positive_leaf(Shape{3, 1}, 5)}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return div(g, x[0].transpose(0, 1), x[1]); },
                                   {leaf(Shape{4, 3}), positive_leaf(Shape{3, 4}, 6)}));
}

TEST(OpsElementwise, ScalarOpGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return add_scalar(g, x[0], 2.5f); }, {leaf(Shape{3, 4})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mul_scalar(g, x[0].transpose(0, 1), -1.75f); },
                                   {leaf(Shape{3, 4})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return neg(g, x[0]); }, {leaf(Shape{7})}));
  for (float p : {2.0f, 3.0f, 1.0f}) {  // integer powers: any sign
    EXPECT_TRUE(check_leaf_gradients([p](Graph& g, Inputs x) { return pow_scalar(g, x[0], p); }, {leaf(Shape{2, 5})}))
        << "p = " << p;
  }
  for (float p : {0.5f, -1.0f, -1.5f, 2.5f}) {  // positive inputs
    EXPECT_TRUE(check_leaf_gradients([p](Graph& g, Inputs x) { return pow_scalar(g, x[0].transpose(0, 1), p); },
                                     {positive_leaf(Shape{5, 2}, 7)}))
        << "p = " << p;
  }
}

TEST(OpsElementwise, HandValuesAndOperandOrder) {
  Graph g;
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30};
  const Tensor ta(a.data(), nullptr, Shape{2, 3}), tb(b.data(), nullptr, Shape{3});
  EXPECT_EQ(testing::values(add(g, ta, tb)), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(testing::values(sub(g, ta, tb)), (std::vector<float>{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(testing::values(sub(g, tb, ta)), (std::vector<float>{9, 18, 27, 6, 15, 24}));
  EXPECT_EQ(testing::values(mul(g, ta.transpose(0, 1), Tensor(b.data(), nullptr, Shape{3, 1}))),
            (std::vector<float>{10, 40, 40, 100, 90, 180}));
  EXPECT_EQ(testing::values(div(g, tb, ta)), (std::vector<float>{10, 10, 10, 2.5f, 4, 5}));
  EXPECT_EQ(testing::values(pow_scalar(g, ta, 2.0f)), (std::vector<float>{1, 4, 9, 16, 25, 36}));
  EXPECT_EQ(testing::values(add_scalar(g, tb, -10.0f)), (std::vector<float>{0, 10, 20}));
  EXPECT_EQ(testing::values(mul_scalar(g, tb, 0.5f)), (std::vector<float>{5, 10, 15}));
  EXPECT_EQ(testing::values(neg(g, tb)), (std::vector<float>{-10, -20, -30}));
}

TEST(OpsElementwise, BroadcastGradientIsSummedHandValue) {
  // loss = sum(a + b) with a [2, 3], b [3]: every b entry is used twice.
  Graph g;
  std::vector<float> a(6, 1.0f), b(3, 1.0f), ga(6, 0.0f), gb(3, 0.0f);
  const Tensor ta(a.data(), ga.data(), Shape{2, 3}), tb(b.data(), gb.data(), Shape{3});
  const Tensor y = add(g, ta, tb);
  const std::vector<float> seed(6, 1.0f);
  g.backward(y, seed);
  EXPECT_EQ(ga, std::vector<float>(6, 1.0f));
  EXPECT_EQ(gb, std::vector<float>(3, 2.0f));
}

TEST(OpsElementwise, ErrorsNameTheOpAndShapes) {
  Graph g;
  std::vector<float> a(6), b(4);
  const Tensor ta(a.data(), nullptr, Shape{2, 3}), tb(b.data(), nullptr, Shape{4});
  try {
    add(g, ta, tb);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("add"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[2, 3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;
  }
  EXPECT_THROW(mul(g, Tensor(), tb), std::invalid_argument);
  std::vector<float> x = {1.0f, -0.5f, 2.0f};
  try {
    pow_scalar(g, Tensor(x.data(), nullptr, Shape{3}), 0.5f);
    FAIL() << "expected an error";
  } catch (const std::range_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pow_scalar"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x[1]"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(pow_scalar(g, Tensor(x.data(), nullptr, Shape{3}), 3.0f));  // integer powers take any sign
}

TEST(OpsElementwise, NoGradRecordsNothing) {
  Graph g;
  std::vector<float> a(6, 1.0f), ga(6, 0.0f);
  const Tensor ta(a.data(), ga.data(), Shape{2, 3});
  {
    NoGradGuard guard(g);
    const Tensor y = mul(g, ta, ta);
    EXPECT_FALSE(y.requires_grad());
    EXPECT_FALSE(add_scalar(g, ta, 1.0f).requires_grad());
  }
  EXPECT_EQ(g.tape_size(), 0u);
  const Tensor y = mul(g, ta, ta);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(g.tape_size(), 1u);
  // An input without a gradient buffer gets none and does not make the output track one.
  const Tensor c(a.data(), nullptr, Shape{2, 3});
  EXPECT_FALSE(add(g, c, c).requires_grad());
  EXPECT_EQ(g.tape_size(), 1u);
}

}  // namespace
}  // namespace sinklab
