// The matmul op's autodiff (the kernel itself is tested in matmul_kernel_test.cpp): gradients of
// both operands by finite differences for plain, transposed-view, batched, broadcast-weight,
// strided head-view and scaled products, plus a hand-computed value and shape errors.
#include <gtest/gtest.h>

#include "core/ops/matmul_op.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

using testing::check_leaf_gradients;
using Inputs = std::span<const Tensor>;

TEST(OpsMatmul, HandComputedProduct) {
  float a[6] = {1, 2, 3, 4, 5, 6};     // [2, 3]
  float b[6] = {7, 8, 9, 10, 11, 12};  // [3, 2]
  Graph g;
  const Tensor c = matmul(g, Tensor(a, nullptr, {2, 3}), Tensor(b, nullptr, {3, 2}), 0.5f);
  EXPECT_FLOAT_EQ(c.at({0, 0}), 0.5f * (1 * 7 + 2 * 9 + 3 * 11));
  EXPECT_FLOAT_EQ(c.at({1, 1}), 0.5f * (4 * 8 + 5 * 10 + 6 * 12));
}

TEST(OpsMatmul, GradientsPlainAndTransposedViews) {
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs in) { return matmul(g, in[0], in[1]); },
                                   {{Shape{3, 5}, {}}, {Shape{5, 4}, {}}}));
  // a^T x b^T through strides only.
  EXPECT_TRUE(check_leaf_gradients(
      [](Graph& g, Inputs in) { return matmul(g, in[0].transpose(0, 1), in[1].transpose(0, 1), 1.5f); },
      {{Shape{5, 3}, {}}, {Shape{4, 5}, {}}}));
}

TEST(OpsMatmul, GradientsBatchedAndBroadcastWeight) {
  // [B, M, K] x [B, K, N]
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs in) { return matmul(g, in[0], in[1]); },
                                   {{Shape{2, 3, 4}, {}}, {Shape{2, 4, 5}, {}}}));
  // A Linear: [B, T, C] x W^T with W [out, C] shared over the batch (flattened path).
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs in) { return matmul(g, in[0], in[1].transpose(0, 1)); },
                                   {{Shape{2, 3, 4}, {}}, {Shape{5, 4}, {}}}));
  // A weight shared over a 4-D batch whose rows cannot be merged (a permuted view).
  EXPECT_TRUE(check_leaf_gradients(
      [](Graph& g, Inputs in) { return matmul(g, in[0].permute({1, 0, 2, 3}), in[1]); },
      {{Shape{3, 2, 2, 4}, {}}, {Shape{4, 3}, {}}}));
}

TEST(OpsMatmul, GradientsSharedInputOverBatchedWeights) {
  // One input projected by every head's weight: x [N, C] x w [H, C, D] -> [H, N, D].
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs in) { return matmul(g, in[0], in[1], 0.75f); },
                                   {{Shape{5, 3}, {}}, {Shape{2, 3, 4}, {}}}));
  // The same with PyTorch-layout weights [H, D, C] read transposed, and a 4-D batch broadcast on dim 0.
  EXPECT_TRUE(check_leaf_gradients([](Graph& g, Inputs in) { return matmul(g, in[0], in[1].transpose(-2, -1)); },
                                   {{Shape{1, 2, 5, 3}, {}}, {Shape{3, 2, 4, 3}, {}}}));
}

TEST(OpsMatmul, SumOverBatchValuesAndGradients) {
  float a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // [2, 2, 3]
  float b[12] = {1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 1, -1};     // [2, 3, 2]
  Graph g;
  const Tensor c = matmul_sum_over_batch(g, Tensor(a, nullptr, {2, 2, 3}), Tensor(b, nullptr, {2, 3, 2}));
  ASSERT_EQ(c.shape(), (Shape{2, 2}));
  // a[0] x b[0] = [[4, 5], [10, 11]]; a[1] x b[1] = [[23, 7], [32, 10]]
  EXPECT_FLOAT_EQ(c.at({0, 0}), 27.0f);
  EXPECT_FLOAT_EQ(c.at({0, 1}), 12.0f);
  EXPECT_FLOAT_EQ(c.at({1, 0}), 42.0f);
  EXPECT_FLOAT_EQ(c.at({1, 1}), 21.0f);
  EXPECT_TRUE(check_leaf_gradients([](Graph& g2, Inputs in) { return matmul_sum_over_batch(g2, in[0], in[1]); },
                                   {{Shape{3, 4, 2}, {}}, {Shape{3, 2, 5}, {}}}));
  // Head-major outputs through a PyTorch-layout output weight [C, H*D] read as [H, D, C].
  EXPECT_TRUE(check_leaf_gradients(
      [](Graph& g2, Inputs in) {
        return matmul_sum_over_batch(g2, in[0], in[1].reshape({3, 2, 2}).permute({1, 2, 0}));
      },
      {{Shape{2, 4, 2}, {}}, {Shape{3, 4}, {}}}));
  EXPECT_THROW(matmul_sum_over_batch(g, Tensor(a, nullptr, {2, 2, 3}), Tensor(b, nullptr, {3, 2, 2})),
               std::invalid_argument);
}

TEST(OpsMatmul, BroadcastingBothOperandsIsRejected) {
  float a[24] = {}, b[24] = {};
  Graph g;
  EXPECT_THROW(matmul(g, Tensor(a, nullptr, {1, 2, 3, 2}), Tensor(b, nullptr, {2, 1, 2, 3})), std::invalid_argument);
}

TEST(OpsMatmul, GradientsOfAttentionHeadViews) {
  // q, k: heads of [B, T, H*D] buffers viewed as [B, H, T, D]; scores = q k^T / 2.
  auto heads = [](const Tensor& t) { return t.reshape({2, 3, 2, 4}).permute({0, 2, 1, 3}); };
  EXPECT_TRUE(check_leaf_gradients(
      [&](Graph& g, Inputs in) { return matmul(g, heads(in[0]), heads(in[1]).transpose(-2, -1), 0.5f); },
      {{Shape{2, 3, 8}, {}}, {Shape{2, 3, 8}, {}}}));
  // The same tensor on both sides gets both contributions.
  EXPECT_TRUE(
      check_leaf_gradients([&](Graph& g, Inputs in) { return matmul(g, heads(in[0]), heads(in[0]).transpose(-2, -1)); },
                           {{Shape{2, 3, 8}, {}}}));
}

TEST(OpsMatmul, ShapeErrorsNameTheShapes) {
  float a[6] = {}, b[8] = {};
  Graph g;
  try {
    matmul(g, Tensor(a, nullptr, {2, 3}), Tensor(b, nullptr, {4, 2}));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[4, 2]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(matmul(g, Tensor(a, nullptr, {6}), Tensor(b, nullptr, {6, 1})), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
