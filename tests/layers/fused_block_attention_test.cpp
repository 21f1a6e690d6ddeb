// The fused block attention (layers/fused_block_attention.h) against the materialized path it replaces
// on short rows (scores = scale q k^T -> attention_weights -> weights x v): forward and the gradients
// of q, k, v and the head parameters for every normalizer variant of the zoo, over sequence lengths
// that put the causal diagonal at every offset of the kernels' row groups and key chunks; its own
// finite-difference check; the layer taking it only when unobserved; bad shapes refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/graph.h"
#include "core/ops/elementwise.h"
#include "core/ops/matmul_op.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/fused_block_attention.h"
#include "layers/multi_head_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/support/attention_paths.h"
#include "tests/support/gradcheck.h"
#include "tests/support/normalizer_variants.h"

namespace sinklab {
namespace {

class FusedEveryNormalizer : public ::testing::TestWithParam<testing::NormalizerVariant> {};

using testing::AttentionGrads;
using testing::close_to_materialized;

// Through the fused op or the materialized path: see tests/support/attention_paths.h.
AttentionGrads run(const std::vector<float>& qkv, const Shape& shape, float scale, const Normalizer& norm, bool fused,
                   uint64_t seed) {
  return testing::attention_grads(
      qkv, shape, norm.params_per_head(),
      [&](Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& params) {
        return fused ? fused_block_attention(g, q, k, v, scale, norm, params)
                     : testing::materialized_attention(g, q, k, v, scale, norm, params);
      },
      seed);
}

TEST_P(FusedEveryNormalizer, MatchesTheMaterializedPath) {
  const auto norm = normalizer_registry().create(GetParam().config);
  for (const int64_t T : {1, 2, 7, 16, 17, 32, 64})
    for (const int64_t D : {5, 16, 32}) {
      const int64_t H = 2, B = 3;
      const Shape shape{H, B, T, D};
      std::vector<float> qkv(static_cast<size_t>(3 * shape.numel()));
      Rng rng(static_cast<uint64_t>(T * 131 + D));
      rng.fill_uniform(qkv, -1.0f, 1.0f);
      const float scale = 1.0f / std::sqrt(static_cast<float>(D));
      const AttentionGrads want = run(qkv, shape, scale, *norm, false, 3);
      const AttentionGrads got = run(qkv, shape, scale, *norm, true, 3);
      SCOPED_TRACE("T " + std::to_string(T) + " D " + std::to_string(D));
      EXPECT_TRUE(close_to_materialized(got.o, want.o, "o"));
      EXPECT_TRUE(close_to_materialized(got.dq, want.dq, "dq"));
      EXPECT_TRUE(close_to_materialized(got.dk, want.dk, "dk"));
      EXPECT_TRUE(close_to_materialized(got.dv, want.dv, "dv"));
      EXPECT_TRUE(close_to_materialized(got.dparams, want.dparams, "dparams"));
    }
}

TEST_P(FusedEveryNormalizer, GradientsMatchFiniteDifferences) {
  const auto norm = normalizer_registry().create(GetParam().config);
  // T = 7: a full row group of four and a partial one of three; D = 3: channels outside a register.
  const Shape shape{2, 2, 7, 3};
  testing::GradcheckOptions options;
  options.skip_kinks = true;  // relu-like rows, sparsemax's support, clip boundaries
  const int P = norm->params_per_head();
  auto f = [&](Graph& g, std::span<const Tensor> in) {
    return fused_block_attention(g, in[0], in[1], in[2], 0.7f, *norm, P > 0 ? in[3] : Tensor());
  };
  std::vector<testing::Leaf> leaves{{shape, {}}, {shape, {}}, {shape, {}}};
  if (P > 0) leaves.push_back({Shape{2, P}, {}});
  EXPECT_TRUE(testing::check_leaf_gradients(f, leaves, options));
}

INSTANTIATE_TEST_SUITE_P(Zoo, FusedEveryNormalizer, ::testing::ValuesIn(testing::normalizer_variants()),
                         [](const auto& info) { return info.param.label; });

// The same inputs give the same bits on every call, whatever the thread count does to the loop
// (head-parameter gradients are summed per head after it, in block order).
TEST(FusedBlockAttention, RepeatsBitForBit) {
  const auto norm = normalizer_registry().create(NormalizerConfig{"sink_logit", {}});
  const Shape shape{2, 64, 16, 16};  // enough blocks for the parallel loop
  std::vector<float> qkv(static_cast<size_t>(3 * shape.numel()));
  Rng rng(5);
  rng.fill_uniform(qkv, -1.0f, 1.0f);
  const AttentionGrads a = run(qkv, shape, 0.25f, *norm, true, 3);
  const AttentionGrads b = run(qkv, shape, 0.25f, *norm, true, 3);
  EXPECT_EQ(a.o, b.o);
  EXPECT_EQ(a.dq, b.dq);
  EXPECT_EQ(a.dk, b.dk);
  EXPECT_EQ(a.dv, b.dv);
  EXPECT_EQ(a.dparams, b.dparams);
}

// q, k, v made in the step's arena (here by `mul_scalar(x, 1)`): the graph leaves their gradient
// buffers unzeroed and the op overwrites each block (core/graph.h, fresh_grad). Two steps in one graph
// reuse the same arena memory, so a block left unwritten or added into would show the first step's
// gradients in the second. Both steps must give the leaf path's gradients bit for bit.
TEST(FusedBlockAttention, OverwritesGradientBuffersItAloneWrites) {
  const auto norm = normalizer_registry().create(NormalizerConfig{"softmax", {}});
  const Shape shape{2, 64, 16, 16};
  std::vector<float> qkv(static_cast<size_t>(3 * shape.numel()));
  Rng rng(9);
  rng.fill_uniform(qkv, -1.0f, 1.0f);
  const AttentionGrads leaf = run(qkv, shape, 0.25f, *norm, true, 3);
  const auto n = static_cast<size_t>(shape.numel());
  std::vector<float> data(qkv), grads(3 * n), r(n);
  const Tensor q(data.data(), grads.data(), shape), k(data.data() + n, grads.data() + n, shape),
      v(data.data() + 2 * n, grads.data() + 2 * n, shape);
  Rng seed_rng(3);
  seed_rng.fill_uniform(r, -1.0f, 1.0f);
  Graph g;
  for (int step = 0; step < 2; ++step) {
    g.reset();
    std::fill(grads.begin(), grads.end(), 0.0f);
    const Tensor qa = mul_scalar(g, q, 1.0f), ka = mul_scalar(g, k, 1.0f), va = mul_scalar(g, v, 1.0f);
    const Tensor o = fused_block_attention(g, qa, ka, va, 0.25f, *norm, Tensor());
    g.backward(o, r);
    // mul_scalar by 1 passes its gradient through unchanged: the leaves see the op's dq, dk, dv.
    EXPECT_TRUE(std::equal(leaf.dq.begin(), leaf.dq.end(), grads.begin())) << "step " << step;
    EXPECT_TRUE(std::equal(leaf.dk.begin(), leaf.dk.end(), grads.begin() + static_cast<int64_t>(n))) << "step " << step;
    EXPECT_TRUE(std::equal(leaf.dv.begin(), leaf.dv.end(), grads.begin() + static_cast<int64_t>(2 * n)))
        << "step " << step;
  }
}

TEST(FusedBlockAttention, RejectsBadShapesAndParameters) {
  std::vector<float> a(2 * 3 * 4 * 5, 0.1f), b(2 * 3 * 4 * 6, 0.1f), c(2 * 1 * 65 * 2, 0.1f), p(4, 0.0f);
  Tensor q(a.data(), nullptr, Shape{2, 3, 4, 5}), k6(b.data(), nullptr, Shape{2, 3, 4, 6});
  Tensor long_rows(c.data(), nullptr, Shape{2, 1, 65, 2}), flat(a.data(), nullptr, Shape{6, 4, 5});
  Graph g;
  const auto softmax = normalizer_registry().create(NormalizerConfig{"softmax", {}});
  const auto sink = normalizer_registry().create(NormalizerConfig{"sink_logit", {}});
  EXPECT_THROW(fused_block_attention(g, q, k6, q, 1.0f, *softmax), std::invalid_argument);
  EXPECT_THROW(fused_block_attention(g, flat, flat, flat, 1.0f, *softmax), std::invalid_argument);
  EXPECT_THROW(fused_block_attention(g, q.transpose(-2, -1), q, q, 1.0f, *softmax), std::invalid_argument);
  EXPECT_THROW(fused_block_attention(g, long_rows, long_rows, long_rows, 1.0f, *softmax), std::invalid_argument);
  EXPECT_THROW(fused_block_attention(g, q, q, q, 1.0f, *sink), std::invalid_argument);  // no [H, 1] parameters
  EXPECT_THROW(fused_block_attention(g, q, q, q, 1.0f, *sink, Tensor(p.data(), nullptr, Shape{4, 1})),
               std::invalid_argument);
  EXPECT_THROW(fused_block_attention(g, q, q, q, 1.0f, *softmax, Tensor(p.data(), nullptr, Shape{2, 1})),
               std::invalid_argument);
  EXPECT_NO_THROW(fused_block_attention(g, q, q, q, 1.0f, *sink, Tensor(p.data(), nullptr, Shape{2, 1})));
}

class CopyingObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    weights.assign(v.weights, v.weights + v.heads * v.batch * v.seq_len * v.seq_len);
  }
  std::vector<float> weights;
};

// Which path a layer's forward pass takes, unobserved and observed: the fused op records one node
// where the materialized path records three (scores, weights, weights x V). The outputs agree.
TEST(FusedBlockAttention, LayerTakesItOnlyWhenUnobserved) {
  for (const char* name : {"softmax", "sink_logit", "sparsemax"}) {
    ParameterStore store;
    AttentionObservers observers;
    AttentionSpec spec;
    spec.d_model = 8;
    spec.heads = 2;
    spec.head_dim = 4;
    spec.bias = true;
    spec.config.scale = ScaleKind::inv_sqrt_head_dim;
    spec.config.normalizer = NormalizerConfig{name, {}};
    MultiHeadAttention attn(store, "attn", spec, InitSpec{InitKind::normal, 0.5f}, 0, &observers);
    store.finalize();
    Rng rng(2);
    attn.initialize(rng);
    std::vector<float> xs;
    const int64_t T = 16;
    const Tensor x = testing::random_tensor(xs, Shape{2, T, 8}, 4);
    SCOPED_TRACE(name);
    EXPECT_TRUE(attn.uses_fused_path(T));
    EXPECT_TRUE(attn.uses_fused_path(MultiHeadAttention::kFusedMaxSeqLen));
    EXPECT_FALSE(attn.uses_fused_path(MultiHeadAttention::kFusedMaxSeqLen + 1));
    Graph fused_graph, observed_graph;
    const Tensor fused_out = attn.forward(fused_graph, x);
    CopyingObserver observer;
    Tensor observed_out;
    {
      auto registration = observers.observe(observer);
      EXPECT_FALSE(attn.uses_fused_path(T));
      observed_out = attn.forward(observed_graph, x);
    }
    EXPECT_EQ(observed_graph.tape_size(), fused_graph.tape_size() + 2);
    EXPECT_EQ(observer.weights.size(), static_cast<size_t>(2 * 2 * T * T));
    const std::vector<float> a(fused_out.data(), fused_out.data() + fused_out.numel()),
        b(observed_out.data(), observed_out.data() + observed_out.numel());
    EXPECT_TRUE(close_to_materialized(a, b, "layer output"));
  }
}

}  // namespace
}  // namespace sinklab
