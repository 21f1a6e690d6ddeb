// Reductions: gradient checks over every axis with and without keepdim, hand values, errors.
#include "core/ops/reduce.h"

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
using Inputs = std::span<const Tensor>;

TEST(OpsReduce, AxisGradients) {
  for (int axis : {0, 1, 2, -1}) {
    for (bool keepdim : {false, true}) {
      EXPECT_TRUE(check_leaf_gradients([=](Graph& g, Inputs x) { return sum(g, x[0], axis, keepdim); },
                                       {leaf(Shape{2, 3, 4})}))
          << "sum axis " << axis << " keepdim " << keepdim;
      EXPECT_TRUE(check_leaf_gradients([=](Graph& g, Inputs x) { return mean(g, x[0], axis, keepdim); },
                                       {leaf(Shape{2, 3, 4})}))
          << "mean axis " << axis << " keepdim " << keepdim;
    }
  }
}

TEST(OpsReduce, AllGradients) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return sum_all(g, x[0]); }, {leaf(Shape{3, 5})}));
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return mean_all(g, x[0]); }, {leaf(Shape{2, 2, 3, 2})}));
}

TEST(OpsReduce, ShapesAndHandValues) {
  Graph g;
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const Tensor t(x.data(), nullptr, Shape{2, 3});
  const Tensor s0 = sum(g, t, 0);
  EXPECT_EQ(s0.shape(), (Shape{3}));
  EXPECT_EQ(testing::values(s0), (std::vector<float>{5, 7, 9}));
  const Tensor m1 = mean(g, t, -1, true);
  EXPECT_EQ(m1.shape(), (Shape{2, 1}));
  EXPECT_EQ(testing::values(m1), (std::vector<float>{2, 5}));
  const Tensor all = sum_all(g, t);
  EXPECT_EQ(all.shape(), (Shape{1}));
  EXPECT_EQ(all.data()[0], 21.0f);
  EXPECT_FLOAT_EQ(mean_all(g, t).data()[0], 3.5f);
}

TEST(OpsReduce, MeanGradientIsOneOverN) {
  Graph g;
  std::vector<float> x(8, 1.0f), gx(8, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{2, 4});
  g.backward(mean_all(g, t));
  EXPECT_EQ(gx, std::vector<float>(8, 0.125f));
}

TEST(OpsReduce, Errors) {
  Graph g;
  std::vector<float> x(6);
  const Tensor t(x.data(), nullptr, Shape{2, 3});
  EXPECT_THROW(sum(g, t, 2), std::invalid_argument);
  try {
    sum(g, t.transpose(0, 1), 0);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("non-contiguous"), std::string::npos) << e.what();
  }
  const Tensor empty(x.data(), nullptr, Shape{2, 0});
  EXPECT_THROW(mean(g, empty, 1), std::invalid_argument);
  EXPECT_EQ(testing::values(sum(g, empty, 1)), (std::vector<float>{0, 0}));
}

}  // namespace
}  // namespace sinklab
