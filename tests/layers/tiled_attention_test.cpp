// The tiled attention (layers/tiled_attention.h) against the materialized path it replaces on long
// rows (scores = scale q k^T -> attention_weights -> weights x v): forward and the gradients of q, k
// and v for every normalizer with a tiled form, over sequence lengths and tile sizes that put the
// causal diagonal at every position of a tile; its own finite-difference check; memory linear in T
// in a layer; observers still seeing the materialized weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/graph.h"
#include "core/ops/elementwise.h"
#include "core/ops/matmul_op.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/multi_head_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "layers/tiled_attention.h"
#include "tests/support/attention_paths.h"
#include "tests/support/gradcheck.h"
#include "tests/support/normalizer_variants.h"

namespace sinklab {
namespace {

class EveryTiledNormalizer : public ::testing::TestWithParam<testing::NormalizerVariant> {};

// Variants whose rows are tiled; a normalizer that loses its tiled form fails here, not silently.
const std::set<std::string>& tiled_labels() {
  static const std::set<std::string> labels = {
      "softmax", "softmax_T0_1", "softmax_T10", "relu", "relu_visible", "relu_seq_len", "relu_none", "relu2",
      "sigmoid", "sigmoid_neg_log_seq_len", "softmax_n", "softmax_n_4", "sink_logit", "gated_softmax_per_head",
      "gated_softmax_elementwise", "ssmax", "elu1", "elu1_none"};
  return labels;
}

using testing::AttentionGrads;
using testing::close_to_materialized;

// Through the tiled op or the materialized path: see tests/support/attention_paths.h.
AttentionGrads run(const std::vector<float>& qkv, const Shape& shape, float scale, const Normalizer& norm, bool tiled,
                   AttentionTiles tiles, uint64_t seed) {
  return testing::attention_grads(
      qkv, shape, norm.params_per_head(),
      [&](Graph& g, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& params) {
        return tiled ? tiled_attention(g, q, k, v, scale, *norm.tiled_form(), params, tiles)
                     : testing::materialized_attention(g, q, k, v, scale, norm, params);
      },
      seed);
}

TEST_P(EveryTiledNormalizer, MatchesTheMaterializedPath) {
  const auto norm = normalizer_registry().create(GetParam().config);
  const bool expected = tiled_labels().count(GetParam().label) > 0;
  ASSERT_EQ(norm->tiled_form().has_value(), expected) << GetParam().label;
  if (!expected) GTEST_SKIP() << "no tiled form: the materialized path only";
  const AttentionTiles tile_sizes[] = {{64, 64}, {7, 5}, {16, 64}, {64, 16}, {1, 1}};
  for (const int64_t T : {1, 2, 7, 64, 65, 300})
    for (const int64_t D : {16, 5, 32})
      for (const AttentionTiles tiles : tile_sizes) {
        if (T == 300 && tiles.query_rows * tiles.key_cols < 64) continue;  // 1x1 tiles at T = 300: slow, nothing new
        const int64_t H = 2, B = 3;
        const Shape shape{H, B, T, D};
        std::vector<float> qkv(static_cast<size_t>(3 * shape.numel()));
        Rng rng(static_cast<uint64_t>(T * 131 + D));
        rng.fill_uniform(qkv, -1.0f, 1.0f);
        const float scale = 1.0f / std::sqrt(static_cast<float>(D));
        const AttentionGrads want = run(qkv, shape, scale, *norm, false, tiles, 3);
        const AttentionGrads got = run(qkv, shape, scale, *norm, true, tiles, 3);
        SCOPED_TRACE("T " + std::to_string(T) + " D " + std::to_string(D) + " tiles " +
                     std::to_string(tiles.query_rows) + "x" + std::to_string(tiles.key_cols));
        EXPECT_TRUE(close_to_materialized(got.o, want.o, "o"));
        EXPECT_TRUE(close_to_materialized(got.dq, want.dq, "dq"));
        EXPECT_TRUE(close_to_materialized(got.dk, want.dk, "dk"));
        EXPECT_TRUE(close_to_materialized(got.dv, want.dv, "dv"));
        EXPECT_TRUE(close_to_materialized(got.dparams, want.dparams, "dparams"));
      }
}

TEST_P(EveryTiledNormalizer, GradientsMatchFiniteDifferences) {
  const auto norm = normalizer_registry().create(GetParam().config);
  if (!norm->tiled_form()) GTEST_SKIP() << "no tiled form";
  const Shape shape{2, 2, 7, 3};
  // Tiles of 3 rows x 2 keys: the diagonal crosses tiles at every offset. The float32 tolerances of
  // tests/support/gradcheck.h; relu-like rows skip entries with a kink inside the step.
  testing::GradcheckOptions options;
  options.skip_kinks = true;
  const int P = norm->params_per_head();
  auto f = [&](Graph& g, std::span<const Tensor> in) {
    return tiled_attention(g, in[0], in[1], in[2], 0.7f, *norm->tiled_form(), P > 0 ? in[3] : Tensor(),
                           AttentionTiles{3, 2});
  };
  std::vector<testing::Leaf> leaves{{shape, {}}, {shape, {}}, {shape, {}}};
  if (P > 0) leaves.push_back({Shape{2, P}, {}});
  EXPECT_TRUE(testing::check_leaf_gradients(f, leaves, options));
}

INSTANTIATE_TEST_SUITE_P(Zoo, EveryTiledNormalizer, ::testing::ValuesIn(testing::normalizer_variants()),
                         [](const auto& info) { return info.param.label; });

TEST(TiledAttention, RejectsBadShapesAndTiles) {
  std::vector<float> a(2 * 3 * 4 * 5, 0.1f), b(2 * 3 * 4 * 6, 0.1f);
  Tensor q(a.data(), nullptr, Shape{2, 3, 4, 5}), k6(b.data(), nullptr, Shape{2, 3, 4, 6});
  Graph g;
  const TiledForm form = TiledForm::softmax(1.0f);
  EXPECT_THROW(tiled_attention(g, q, k6, q, 1.0f, form), std::invalid_argument);
  EXPECT_THROW(tiled_attention(g, q, q, q, 1.0f, form, Tensor(), AttentionTiles{8, 65}), std::invalid_argument);
  EXPECT_THROW(tiled_attention(g, q, q, q, 1.0f, form, Tensor(), AttentionTiles{0, 8}), std::invalid_argument);
  // A head-slot softmax (sink_logit) without its [H, 1] parameters.
  EXPECT_THROW(tiled_attention(g, q, q, q, 1.0f, TiledForm::softmax_with_head_slot()), std::invalid_argument);
}

// A layer with a softmax or relu normalizer; one forward + backward at T, returns arena floats used.
struct Layer {
  explicit Layer(const std::string& normalizer) {
    AttentionSpec spec;
    spec.d_model = 8;
    spec.heads = 2;
    spec.head_dim = 4;
    spec.bias = true;
    spec.config.scale = ScaleKind::inv_sqrt_head_dim;
    spec.config.normalizer = NormalizerConfig{normalizer, {}};
    attn = std::make_unique<MultiHeadAttention>(store, "attn", spec, InitSpec{InitKind::normal, 0.5f}, 0, &observers);
    store.finalize();
    Rng rng(2);
    attn->initialize(rng);
  }
  size_t step_floats(int64_t T) {
    const int64_t B = 2;
    std::vector<float> xs;
    const Tensor x = testing::random_tensor(xs, Shape{B, T, 8}, 4);
    Graph g(1);
    const Tensor out = attn->forward(g, x);
    std::vector<float> seed(static_cast<size_t>(out.numel()), 0.5f);
    g.backward(out, seed);
    return g.arena().used();
  }
  ParameterStore store;
  AttentionObservers observers;
  std::unique_ptr<MultiHeadAttention> attn;
};

class CountingObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView&) override { ++calls; }
  int calls = 0;
};

TEST(TiledAttention, LayerStepMemoryGrowsLinearlyInT) {
  for (const char* name : {"softmax", "relu"}) {
    Layer layer(name);
    ASSERT_TRUE(layer.attn->uses_tiled_path(256));
    const double ratio = static_cast<double>(layer.step_floats(1024)) / static_cast<double>(layer.step_floats(256));
    EXPECT_LE(ratio, 4.2) << name << ": 4x the rows should cost at most ~4x the memory, got " << ratio;
    // The same layer observed takes the materialized path: quadratic, which this test would catch.
    CountingObserver observer;
    auto registration = layer.observers.observe(observer);
    ASSERT_FALSE(layer.attn->uses_tiled_path(256));
    const double observed =
        static_cast<double>(layer.step_floats(1024)) / static_cast<double>(layer.step_floats(256));
    EXPECT_GE(observed, 10.0) << name;
    EXPECT_EQ(observer.calls, 2);
  }
}

TEST(TiledAttention, ShortRowsKeepTheMaterializedPath) {
  Layer layer("softmax");
  EXPECT_FALSE(layer.attn->uses_tiled_path(MultiHeadAttention::kTiledMinSeqLen - 1));
  EXPECT_TRUE(layer.attn->uses_tiled_path(MultiHeadAttention::kTiledMinSeqLen));
  Layer sparse("sparsemax");
  EXPECT_FALSE(sparse.attn->uses_tiled_path(1024));
}

class CopyingObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    const int64_t n = v.heads * v.batch * v.seq_len * v.seq_len;
    weights.assign(v.weights, v.weights + n);  // head-major [H, B, T, T], as the layer keeps them
  }
  std::vector<float> weights;
};

// rows [N, C] x each head's slice of w [H*D, C] (+ bias) -> [H, N, D], as the layer projects.
Tensor project(Graph& g, const Tensor& rows, ParameterStore& store, const std::string& name, int64_t H, int64_t D) {
  const Tensor w = store.tensor(name + ".weight"), bias = store.tensor(name + ".bias");
  return add(g, matmul(g, rows, w.reshape({H, D, rows.dim(1)}).transpose(-2, -1)), bias.reshape({H, 1, D}));
}

TEST(TiledAttention, ObserversSeeTheMaterializedWeightsAndTheOutputsAgree) {
  Layer layer("softmax");
  const int64_t B = 2, T = 300, C = 8, H = 2, D = 4;
  std::vector<float> xs;
  const Tensor x = testing::random_tensor(xs, Shape{B, T, C}, 4);
  Graph tiled_graph, observed_graph, reference_graph;
  const Tensor tiled_out = layer.attn->forward(tiled_graph, x);
  CopyingObserver observer;
  Tensor observed_out;
  {
    auto registration = layer.observers.observe(observer);
    observed_out = layer.attn->forward(observed_graph, x);
  }
  // The weights the materialized path computes from the same projections, bit for bit.
  const Tensor rows = x.reshape({B * T, C});
  const Tensor q = project(reference_graph, rows, layer.store, "attn.w_q", H, D).reshape({H, B, T, D});
  const Tensor k = project(reference_graph, rows, layer.store, "attn.w_k", H, D).reshape({H, B, T, D});
  const Tensor scores = matmul(reference_graph, q, k.transpose(-2, -1), layer.attn->logit_scale());
  const Tensor weights = attention_weights(reference_graph, scores, layer.attn->normalizer(), Tensor());
  ASSERT_EQ(observer.weights.size(), static_cast<size_t>(weights.numel()));
  for (int64_t i = 0; i < weights.numel(); ++i)
    ASSERT_EQ(observer.weights[static_cast<size_t>(i)], weights.data()[i]) << i;
  const std::vector<float> a(tiled_out.data(), tiled_out.data() + tiled_out.numel()),
      b(observed_out.data(), observed_out.data() + observed_out.numel());
  EXPECT_TRUE(close_to_materialized(a, b, "layer output"));
}

}  // namespace
}  // namespace sinklab
