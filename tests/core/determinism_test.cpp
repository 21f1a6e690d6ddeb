// Determinism: the same seed gives bit-identical outputs and gradients of a composed graph, across
// repeated runs and (with OpenMP) across thread counts, including sizes that take the parallel paths.
#include <gtest/gtest.h>

#include <vector>

#include "core/ops/elementwise.h"
#include "core/ops/embedding.h"
#include "core/ops/losses.h"
#include "core/ops/normalization.h"
#include "core/ops/unary.h"
#include "core/thread_count.h"
#include "tests/core/test_arrays.h"

namespace sinklab {
namespace {

struct Result {
  std::vector<float> loss, table_grad, weight_grad, bias_grad;
};

// Embedding -> layer norm -> broadcast pair products -> sigmoid -> losses, all seeded from `seed`.
Result run(uint64_t seed, int64_t batch, int64_t t, int64_t c) {
  Rng rng(seed);
  const int64_t vocab = 11;
  std::vector<float> table(static_cast<size_t>(vocab * c)), table_grad(table.size(), 0.0f);
  std::vector<float> w(static_cast<size_t>(c)), w_grad(w.size(), 0.0f), b(w.size()), b_grad(w.size(), 0.0f);
  rng.fill_normal(table, 0.0f, 1.0f);
  rng.fill_uniform(w, 0.5f, 1.5f);
  rng.fill_uniform(b, -0.1f, 0.1f);
  std::vector<int32_t> ids(static_cast<size_t>(batch * t));
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab)));
  std::vector<float> target(static_cast<size_t>(batch * t * t * c));
  rng.fill_uniform(target, 0.0f, 0.2f);
  std::vector<float> zeros(static_cast<size_t>(batch * t * c), 0.0f);

  Graph g;
  const Tensor tt(table.data(), table_grad.data(), Shape{vocab, c}), tw(w.data(), w_grad.data(), Shape{c}),
      tb(b.data(), b_grad.data(), Shape{c});
  const Tensor x = layer_norm(g, embedding(g, tt, ids.data(), Shape{batch, t}), tw, tb);  // [B, T, C]
  const Tensor h = gelu(g, x);
  // prod[b, i, j, c] = h[b, i, c] * x[b, j, c]: its backward sums over the broadcast axes.
  const Tensor prod = mul(g, h.reshape(Shape{batch, t, 1, c}), x.reshape(Shape{batch, 1, t, c}));
  const Tensor gates = sigmoid(g, mul_scalar(g, prod, 0.5f));
  const Tensor penalty = mse_loss(g, tanh(g, x), Tensor(zeros.data(), nullptr, Shape{batch, t, c}));
  const Tensor loss = add(g, mse_loss(g, gates, Tensor(target.data(), nullptr, Shape{batch, t, t, c})),
                          mul_scalar(g, penalty, 0.1f));
  g.backward(loss);
  return {{loss.data()[0]}, table_grad, w_grad, b_grad};
}

void expect_identical(const Result& a, const Result& b) {
  EXPECT_TRUE(testing::same_bits(a.loss, b.loss));
  EXPECT_TRUE(testing::same_bits(a.table_grad, b.table_grad));
  EXPECT_TRUE(testing::same_bits(a.weight_grad, b.weight_grad));
  EXPECT_TRUE(testing::same_bits(a.bias_grad, b.bias_grad));
}

TEST(Determinism, SameSeedSameBits) {
  const Result a = run(5, 2, 6, 8), b = run(5, 2, 6, 8);
  expect_identical(a, b);
  const Result c = run(6, 2, 6, 8);
  EXPECT_FALSE(testing::same_bits(a.loss, c.loss));  // the seed matters
}

TEST(Determinism, LargeGraphSameBitsAcrossRunsAndThreadCounts) {
  // 4 x 32 x 32 x 64 = 262k-element products and [128, 64] rows: the parallel paths run.
  const Result a = run(9, 4, 32, 64), b = run(9, 4, 32, 64);
  expect_identical(a, b);
#ifdef SINKLAB_HAVE_OPENMP
  const int threads = set_thread_count(1);
  const Result single = run(9, 4, 32, 64);
  set_thread_count(threads);
  // Every kernel reduces per row in a fixed order, so even the thread count does not change a bit.
  expect_identical(a, single);
#endif
}

}  // namespace
}  // namespace sinklab
