// Graph: gradient accumulation for tensors used twice, no-grad mode, tape bookkeeping, backward
// errors, and a steady-state step that allocates nothing after the first one.
#include "core/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/ops/elementwise.h"
#include "core/ops/losses.h"
#include "core/ops/matmul_op.h"
#include "core/ops/normalization.h"
#include "core/ops/unary.h"
#include "tests/core/allocation_counter.h"
#include "tests/core/test_arrays.h"

namespace sinklab {
namespace {

// Seeding backward with ones gives the gradients of sum(y).
const std::vector<float> kOnes(32, 1.0f);
std::span<const float> ones(const Tensor& y) { return std::span(kOnes).first(static_cast<size_t>(y.numel())); }

TEST(Graph, TensorUsedTwiceGetsBothContributions) {
  Graph g;
  std::vector<float> x = {1.5f, -2.0f, 3.0f}, gx(3, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{3});
  const Tensor y = mul(g, t, t);
  g.backward(y, ones(y));  // d/dx sum(x^2) = 2x
  EXPECT_EQ(gx, (std::vector<float>{3.0f, -4.0f, 6.0f}));

  Graph g2;
  std::vector<float> w = {2.0f, 2.0f, 2.0f}, gx2(3, 0.0f);
  const Tensor t2(x.data(), gx2.data(), Shape{3}), tw(w.data(), nullptr, Shape{3});
  const Tensor y2 = add(g2, mul(g2, t2, tw), t2);
  g2.backward(y2, ones(y2));  // d/dx sum(w x + x) = w + 1
  EXPECT_EQ(gx2, std::vector<float>(3, 3.0f));
}

TEST(Graph, GradientsAccumulateAcrossBackwardCalls) {
  std::vector<float> x = {1.0f, 2.0f}, gx(2, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{2});
  for (int step = 0; step < 2; ++step) {
    Graph g;
    const Tensor y = mul_scalar(g, t, 3.0f);
    g.backward(y, ones(y));
  }
  EXPECT_EQ(gx, (std::vector<float>{6.0f, 6.0f}));  // leaves accumulate until someone zeroes them
}

// Gradient buffers are zeroed lazily, and a matmul that is a buffer's only consumer overwrites it
// instead: neither may let a previous step's values (left in the reused arena) leak into this one.
TEST(Graph, GradientsDoNotDependOnStaleArenaMemory) {
  struct Leaves {
    std::vector<float> x, w, v, dx, dw, dv;
  };
  auto make = [](uint64_t seed) {
    Leaves l{testing::random_floats(12, seed),
             testing::random_floats(15, seed + 1),
             testing::random_floats(10, seed + 2),
             std::vector<float>(12),
             std::vector<float>(15),
             std::vector<float>(10)};
    return l;
  };
  // loss = sum((x w) v + (x w) v) with an unused (x w) beside it:
  // h has one matmul consumer (overwritten), z two uses (zeroed, then added), unused none (zeros).
  // The poisoning step also uses `unused`, so that its gradient buffer is left non-zero.
  auto step = [](Graph& g, Leaves& l, std::vector<float>* h_grad, std::vector<float>* unused_grad, bool poison) {
    const Tensor x(l.x.data(), l.dx.data(), {4, 3}), w(l.w.data(), l.dw.data(), {3, 5}),
        v(l.v.data(), l.dv.data(), {5, 2});
    const Tensor h = matmul(g, x, w);
    const Tensor unused = matmul(g, x, w);
    const Tensor arena_leaf = g.new_tensor({3}, true);  // no node produces it: only the final sweep zeroes it
    std::fill_n(arena_leaf.data(), 3, 1.0f);
    const Tensor z = matmul(g, h, v);
    const Tensor zz = add(g, z, z);
    if (poison) {
      std::vector<float> zeros(20, 0.0f);
      const auto zero = [&](const Tensor& like) { return Tensor(zeros.data(), nullptr, like.shape()); };
      const Tensor rest = add(g, mse_loss(g, unused, zero(unused)), mse_loss(g, arena_leaf, zero(arena_leaf)));
      g.backward(add(g, mse_loss(g, zz, zero(zz)), rest));
    } else {
      g.backward(zz, ones(zz));
    }
    EXPECT_TRUE(poison || std::all_of(arena_leaf.grad(), arena_leaf.grad() + 3, [](float d) { return d == 0.0f; }));
    if (h_grad) h_grad->assign(h.grad(), h.grad() + h.numel());
    if (unused_grad) unused_grad->assign(unused.grad(), unused.grad() + unused.numel());
  };
  Leaves fresh = make(1);
  std::vector<float> h_fresh, unused_fresh;
  Graph g1;
  step(g1, fresh, &h_fresh, &unused_fresh, false);

  Graph g2;
  Leaves other = make(50);  // a first step on different numbers leaves different stale gradients
  step(g2, other, nullptr, nullptr, true);
  g2.reset();
  Leaves again = make(1);
  std::vector<float> h_again, unused_again;
  step(g2, again, &h_again, &unused_again, false);

  EXPECT_EQ(again.dx, fresh.dx);
  EXPECT_EQ(again.dw, fresh.dw);
  EXPECT_EQ(again.dv, fresh.dv);
  EXPECT_EQ(h_again, h_fresh);
  EXPECT_EQ(unused_again, std::vector<float>(unused_again.size(), 0.0f));
  // And the values are right: dh = 2 * 1 v^T for every row.
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 5; ++c)
      EXPECT_FLOAT_EQ(h_fresh[static_cast<size_t>(r * 5 + c)],
                      2.0f * (fresh.v[static_cast<size_t>(c * 2)] + fresh.v[static_cast<size_t>(c * 2 + 1)]));
}

TEST(Graph, NoGradGuardRecordsNothingAndAllocatesNoGradients) {
  Graph g;
  std::vector<float> x(64, 0.5f), gx(64, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{4, 16});
  const size_t before = g.arena().used();
  {
    NoGradGuard guard(g);
    EXPECT_FALSE(g.grad_enabled());
    const Tensor y = tanh(g, gelu(g, t));
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad(), nullptr);
  }
  EXPECT_TRUE(g.grad_enabled());
  EXPECT_EQ(g.tape_size(), 0u);
  EXPECT_EQ(g.arena().used() - before, 2u * 64);  // two outputs, no gradient buffers
  const size_t mid = g.arena().used();
  const Tensor y = gelu(g, t);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(g.arena().used() - mid, 2u * 64);  // output + its gradient
}

TEST(Graph, TapeSizeAndReset) {
  Graph g;
  std::vector<float> x(6, 1.0f), gx(6, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{2, 3});
  const Tensor a = exp(g, t);
  const Tensor b = mul(g, a, t);
  sigmoid(g, b);
  EXPECT_EQ(g.tape_size(), 3u);
  const Tensor frozen(x.data(), nullptr, Shape{2, 3});
  exp(g, frozen);  // nothing to differentiate: not recorded
  EXPECT_EQ(g.tape_size(), 3u);
  g.reset();
  EXPECT_EQ(g.tape_size(), 0u);
  EXPECT_EQ(g.arena().used(), 0u);
}

TEST(Graph, BackwardErrors) {
  Graph g;
  std::vector<float> x(4, 1.0f), gx(4, 0.0f);
  const Tensor t(x.data(), gx.data(), Shape{4});
  const Tensor y = exp(g, t);
  EXPECT_THROW(g.backward(y), std::invalid_argument);  // 4 elements, not a scalar loss
  const std::vector<float> short_seed(3, 1.0f);
  EXPECT_THROW(g.backward(y, short_seed), std::invalid_argument);
  const Tensor frozen(x.data(), nullptr, Shape{1});
  EXPECT_THROW(g.backward(frozen), std::logic_error);
}

// A payload as large as a node holds, with a pointer, integers and a float.
struct ScaleSaved {
  const float* bias;
  int64_t count, tag;
  float scale;
};
static_assert(sizeof(ScaleSaved) == Node::kPayloadBytes);

// dx += scale * dy + bias[i]: the result shows whether backward read its own node's payload.
void scale_backward(const Node& n) {
  const auto& s = n.payload<ScaleSaved>();
  for (int64_t i = 0; i < s.count; ++i) n.inputs[0].grad()[i] += s.scale * n.output.grad()[i] + s.bias[i] + s.tag;
}

Tensor record_scale(Graph& g, const Tensor& x, const ScaleSaved& saved) {
  const Tensor y = g.new_tensor(x.shape(), true);
  Node n;
  n.backward = scale_backward;
  n.op = "test_scale";
  n.inputs = {x};
  n.output = y;
  n.set_payload(saved);
  g.record(n);
  return y;
}

TEST(Graph, EachNodeKeepsItsPayloadWhileTheTapeGrows) {
  Graph g(/*arena_floats=*/64, /*tape_capacity=*/1);  // the tape moves its nodes as it grows
  std::vector<float> x = {1.0f, 2.0f}, gx(2, 0.0f);
  const std::vector<float> bias1 = {0.5f, 0.25f}, bias2 = {4.0f, 8.0f};
  const Tensor t(x.data(), gx.data(), Shape{2});
  const Tensor y1 = record_scale(g, t, {bias1.data(), 2, 0, 3.0f});
  const Tensor y2 = record_scale(g, y1, {bias2.data(), 2, 16, -1.0f});
  ASSERT_EQ(g.tape_size(), 2u);
  const std::vector<float> seed = {1.0f, 2.0f};
  g.backward(y2, seed);
  // dy1 = -1 * seed + bias2 + 16, then dx = 3 * dy1 + bias1.
  EXPECT_EQ(std::vector<float>(y1.grad(), y1.grad() + 2), (std::vector<float>{19.0f, 22.0f}));
  EXPECT_EQ(gx, (std::vector<float>{57.5f, 66.25f}));
}

// One training-like step: layer norm, gated activation, losses, backward, reset.
void step(Graph& g, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& target) {
  const Tensor h = layer_norm(g, x, w, b);
  const Tensor a = mul(g, gelu(g, h), sigmoid(g, h));
  const Tensor p = tanh(g, mul_scalar(g, add(g, a, b), 0.7f));
  const Tensor loss = add(g, mse_loss(g, p, target), mse_loss(g, pow_scalar(g, a, 2.0f), target));
  g.backward(loss);
  g.reset();
}

TEST(Graph, SteadyStateStepsAllocateNothing) {
  std::vector<float> x = testing::random_floats(8 * 32, 1), gx(x.size(), 0.0f);
  std::vector<float> w(32, 1.0f), gw(32, 0.0f), b(32, 0.1f), gb(32, 0.0f);
  std::vector<float> target = testing::random_floats(8 * 32, 2, 0.0f, 0.1f);
  const Tensor tx(x.data(), gx.data(), Shape{8, 32}), tw(w.data(), gw.data(), Shape{32}),
      tb(b.data(), gb.data(), Shape{32}), tt(target.data(), nullptr, Shape{8, 32});
  Graph g(/*arena_floats=*/512, /*tape_capacity=*/2);  // both too small: the first step must grow them
  step(g, tx, tw, tb, tt);
  const size_t arena_blocks = g.arena().heap_allocations();
  const size_t heap = testing::heap_allocation_count();
  for (int i = 0; i < 10; ++i) step(g, tx, tw, tb, tt);
  EXPECT_EQ(g.arena().heap_allocations(), arena_blocks);
  EXPECT_EQ(testing::heap_allocation_count() - heap, 0u) << "operator new calls in 10 steady-state steps";
  EXPECT_GT(arena_blocks, 1u);  // the first step did spill, so the test exercises consolidation
}

}  // namespace
}  // namespace sinklab
