// Losses: gradient checks (both mse inputs, strided prediction, cross entropy), hand values, errors,
// and max_abs_error.
#include "core/ops/losses.h"

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
using Inputs = std::span<const Tensor>;

TEST(OpsLosses, MseGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mse_loss(g, x[0], x[1]); },
                                   {leaf(Shape{3, 4}), leaf(Shape{3, 4})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mse_loss(g, x[0].transpose(0, 1), x[1]); },
                                   {leaf(Shape{4, 3}), leaf(Shape{3, 4})}));
}

TEST(OpsLosses, CrossEntropyGradients) {
  static const std::vector<int32_t> targets = {2, 0, 4, 4};
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return cross_entropy(g, x[0], targets.data()); },
                                   {leaf(Shape{4, 5})}));
}

TEST(OpsLosses, HandValues) {
  Graph g;
  std::vector<float> p = {1, 2}, t = {0, 0}, gp(2, 0.0f), gt(2, 0.0f);
  const Tensor loss = mse_loss(g, Tensor(p.data(), gp.data(), Shape{2}), Tensor(t.data(), gt.data(), Shape{2}));
  EXPECT_EQ(loss.shape(), (Shape{1}));
  EXPECT_FLOAT_EQ(loss.data()[0], 2.5f);
  g.backward(loss);
  EXPECT_EQ(gp, (std::vector<float>{1, 2}));
  EXPECT_EQ(gt, (std::vector<float>{-1, -2}));

  std::vector<float> logits(6, 0.0f);
  const std::vector<int32_t> targets = {0, 2};
  EXPECT_NEAR(cross_entropy(g, Tensor(logits.data(), nullptr, Shape{2, 3}), targets.data()).data()[0], std::log(3.0f),
              1e-6);
}

TEST(OpsLosses, Errors) {
  Graph g;
  std::vector<float> a(6), b(6);
  try {
    mse_loss(g, Tensor(a.data(), nullptr, Shape{2, 3}), Tensor(b.data(), nullptr, Shape{3, 2}));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("mse_loss"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[3, 2]"), std::string::npos) << msg;
  }
  const std::vector<int32_t> targets = {1, 3};
  try {
    cross_entropy(g, Tensor(a.data(), nullptr, Shape{2, 3}), targets.data());
    FAIL() << "expected an error";
  } catch (const std::range_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("target 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("row 1"), std::string::npos) << msg;
  }
  EXPECT_THROW(cross_entropy(g, Tensor(a.data(), nullptr, Shape{6}), targets.data()), std::invalid_argument);
}

TEST(OpsLosses, MaxAbsError) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 5, 2, 4, 6, 3};
  const Tensor ta(a.data(), nullptr, Shape{2, 3});
  // b holds the transpose of a, except two entries: compare a view against a.
  const Tensor tb = Tensor(b.data(), nullptr, Shape{3, 2}).transpose(0, 1);  // [[1, 2, 6], [5, 4, 3]]
  EXPECT_FLOAT_EQ(max_abs_error(ta, tb), 3.0f);
  EXPECT_EQ(max_abs_error(ta, ta), 0.0f);
  a[4] = NAN;
  EXPECT_TRUE(std::isnan(max_abs_error(ta, tb)));
  EXPECT_THROW(max_abs_error(ta, Tensor(b.data(), nullptr, Shape{3, 2})), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
