// Embedding op: gradient check with repeated ids, output shape, out-of-range ids.
#include "core/ops/embedding.h"

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

TEST(OpsEmbedding, GradientWithRepeatedIds) {
  static const std::vector<int32_t> ids = {3, 0, 3, 4, 1, 3};  // id 3 three times, id 2 never
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs x) { return embedding(g, x[0], ids.data(), Shape{2, 3}); },
                                   {leaf(Shape{5, 4})}));
}

TEST(OpsEmbedding, ShapeValuesAndScatteredGradient) {
  Graph g;
  std::vector<float> table = {0, 1, 10, 11, 20, 21}, grad(6, 0.0f);  // [3, 2]
  const std::vector<int32_t> ids = {2, 2, 0, 1};
  const Tensor t(table.data(), grad.data(), Shape{3, 2});
  const Tensor y = embedding(g, t, ids.data(), Shape{2, 2});
  EXPECT_EQ(y.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(testing::values(y), (std::vector<float>{20, 21, 20, 21, 0, 1, 10, 11}));
  const std::vector<float> seed = {1, 2, 3, 4, 5, 6, 7, 8};
  g.backward(y, seed);
  EXPECT_EQ(grad, (std::vector<float>{5, 6, 7, 8, 4, 6}));
}

TEST(OpsEmbedding, OutOfRangeIdIsNamed) {
  Graph g;
  std::vector<float> table(6);
  const Tensor t(table.data(), nullptr, Shape{3, 2});
  const std::vector<int32_t> ids = {0, 1, 2, 7};
  try {
    embedding(g, t, ids.data(), Shape{2, 2});
    FAIL() << "expected an error";
  } catch (const std::range_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("id 7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[1, 1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3 rows"), std::string::npos) << msg;
  }
  const std::vector<int32_t> negative = {-1};
  EXPECT_THROW(embedding(g, t, negative.data(), Shape{1}), std::range_error);
  EXPECT_THROW(embedding(g, t, ids.data(), Shape{1, 1, 1, 1}), std::invalid_argument);  // output rank 5
  EXPECT_THROW(embedding(g, Tensor(table.data(), nullptr, Shape{6}), ids.data(), Shape{1}), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
