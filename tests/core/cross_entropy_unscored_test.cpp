// Cross-entropy with unscored rows (target -1, what token tasks use for positions with nothing to
// predict): the loss is the mean over scored rows only, unscored rows get no gradient, the kernel
// matches its reference, and ids below -1 are still refused.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/kernels/losses.h"
#include "core/ops/losses.h"
#include "core/rng.h"
#include "tests/core/test_arrays.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

using Inputs = std::span<const Tensor>;

TEST(CrossEntropyUnscored, GradientsMatchFiniteDifferences) {
  static const std::vector<int32_t> targets = {2, -1, 4, -1, 0};
  EXPECT_TRUE(testing::check_leaf_gradients([](Graph& g, Inputs x) { return cross_entropy(g, x[0], targets.data()); },
                                            {testing::leaf(Shape{5, 5})}));
}

TEST(CrossEntropyUnscored, EqualsTheLossOfTheScoredRowsAlone) {
  std::vector<float> all = testing::random_floats(4 * 3, 5, -2.0f, 2.0f), grad(all.size(), 0.0f);
  const std::vector<int32_t> targets = {1, -1, -1, 2};
  std::vector<float> scored = {all[0], all[1], all[2], all[9], all[10], all[11]}, scored_grad(6, 0.0f);
  const std::vector<int32_t> scored_targets = {1, 2};
  Graph g;
  const Tensor loss = cross_entropy(g, Tensor(all.data(), grad.data(), Shape{4, 3}), targets.data());
  Graph h;
  const Tensor expected =
      cross_entropy(h, Tensor(scored.data(), scored_grad.data(), Shape{2, 3}), scored_targets.data());
  EXPECT_EQ(loss.data()[0], expected.data()[0]);
  g.backward(loss);
  h.backward(expected);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(grad[static_cast<size_t>(k)], scored_grad[static_cast<size_t>(k)]);
    EXPECT_EQ(grad[static_cast<size_t>(9 + k)], scored_grad[static_cast<size_t>(3 + k)]);
    EXPECT_EQ(grad[static_cast<size_t>(3 + k)], 0.0f);  // unscored rows
    EXPECT_EQ(grad[static_cast<size_t>(6 + k)], 0.0f);
  }
}

TEST(CrossEntropyUnscored, NoScoredRowGivesZeroLossAndNoGradient) {
  std::vector<float> x(6, 1.0f), dx(6, 0.0f);
  const std::vector<int32_t> targets = {-1, -1};
  Graph g;
  const Tensor loss = cross_entropy(g, Tensor(x.data(), dx.data(), Shape{2, 3}), targets.data());
  EXPECT_EQ(loss.data()[0], 0.0f);
  g.backward(loss);
  for (float v : dx) EXPECT_EQ(v, 0.0f);
}

TEST(CrossEntropyUnscored, KernelMatchesReference) {
  const int64_t rows = 37, cols = 11;
  const std::vector<float> x = testing::random_floats(static_cast<size_t>(rows * cols), 8, -4.0f, 4.0f);
  std::vector<int32_t> targets(static_cast<size_t>(rows));
  Rng rng(9);
  for (auto& t : targets) t = rng.below(3) == 0 ? kernels::kIgnoredTarget : static_cast<int32_t>(rng.below(cols));
  std::vector<float> lse(static_cast<size_t>(rows));
  EXPECT_NEAR(kernels::cross_entropy_forward(x.data(), targets.data(), lse.data(), rows, cols),
              kernels::cross_entropy_forward_reference(x.data(), targets.data(), rows, cols), 2e-6);
  std::vector<float> dx(x.size(), 0.0f), dx_ref(x.size(), 0.0f);
  kernels::cross_entropy_backward(x.data(), targets.data(), lse.data(), 0.7f, dx.data(), rows, cols);
  kernels::cross_entropy_backward_reference(x.data(), targets.data(), 0.7f, dx_ref.data(), rows, cols);
  EXPECT_TRUE(testing::all_close(dx, dx_ref, 1e-5, 1e-6));
}

TEST(CrossEntropyUnscored, OtherNegativeIdsAreRefused) {
  std::vector<float> x(6, 0.0f);
  const std::vector<int32_t> targets = {0, -2};
  Graph g;
  EXPECT_THROW(cross_entropy(g, Tensor(x.data(), nullptr, Shape{2, 3}), targets.data()), std::range_error);
}

}  // namespace
}  // namespace sinklab
