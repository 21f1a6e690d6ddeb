// The model in its configurations beyond the golden ones: token input with learned positions,
// projected vector input with sinusoidal positions and an output head, RMSNorm, MLPs, RoPE.
// (The ReLU MLP is gradient-checked in the core relu op test; inside a deep model its kinks sit within
// a finite-difference step of some pre-activations, so the model-level checks use GELU.)
// Gradients of every parameter against finite differences; parameter naming; bad shapes.
#include <gtest/gtest.h>

#include "layers/transformer.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

ModelConfig small_model() {
  ModelConfig m;
  m.d_model = 8;
  m.layers = 2;
  m.heads = 2;
  m.head_dim = {HeadDimMode::split, 0};
  m.residual = true;
  m.init_std = 0.4;
  m.attention.scale = ScaleKind::inv_sqrt_head_dim;
  return m;
}

struct Built {
  ParameterStore store;
  std::unique_ptr<Transformer> model;
};

std::unique_ptr<Built> build(const ModelConfig& m, const ModelShape& shape) {
  auto b = std::make_unique<Built>();
  b->model = std::make_unique<Transformer>(b->store, m, shape);
  b->store.finalize();
  Rng rng(17);
  b->model->initialize(rng);
  // Norm gains/biases start at 1/0; perturb them so their gradients are generic.
  Rng jitter(3);
  for (const ParameterInfo& p : b->store.parameters())
    if (p.name.find("norm") != std::string::npos || p.name.find("ln") != std::string::npos)
      for (int64_t i = 0; i < p.shape.numel(); ++i)
        b->store.values()[p.offset + static_cast<size_t>(i)] += jitter.uniform(-0.2f, 0.2f);
  return b;
}

// W_O W_V v of block `layer` (all heads): what a row that sees only one key with input v outputs.
std::vector<double> value_map(const ParameterStore& store, int layer, const std::vector<double>& v) {
  const std::string p = "blocks." + std::to_string(layer) + ".attn.";
  const Tensor wv = store.tensor(p + "w_v.weight"), wo = store.tensor(p + "w_o.weight");  // [H*D, C], [C, H*D]
  std::vector<double> hidden(static_cast<size_t>(wv.dim(0)), 0.0), out(static_cast<size_t>(wo.dim(0)), 0.0);
  for (int64_t r = 0; r < wv.dim(0); ++r)
    for (int64_t e = 0; e < wv.dim(1); ++e) hidden[static_cast<size_t>(r)] += wv.at({r, e}) * v[static_cast<size_t>(e)];
  for (int64_t c = 0; c < wo.dim(0); ++c)
    for (int64_t r = 0; r < wo.dim(1); ++r)
      out[static_cast<size_t>(c)] += wo.at({c, r}) * hidden[static_cast<size_t>(r)];
  return out;
}

TEST(Transformer, TokenInputLearnedPositionsRmsNormMlp) {
  ModelConfig m = small_model();
  m.input = InputKind::tokens;
  m.vocab_size = 11;
  m.positional = Positional::learned;
  m.norm = NormKind::rms_norm;
  m.mlp_hidden = 12;
  m.bias = true;
  m.output_head = true;
  auto b = build(m, {4, 5, 6});
  for (const char* name :
       {"embedding.weight", "pos_embedding.weight", "blocks.1.ln1.weight", "blocks.0.attn.w_q.weight",
        "blocks.0.attn.w_q.bias", "blocks.1.mlp.fc2.bias", "final_norm.weight", "output_head.weight"})
    EXPECT_TRUE(b->store.contains(name)) << name;
  EXPECT_FALSE(b->store.contains("final_norm.bias")) << "RMSNorm has no bias";
  const int32_t ids[2 * 6] = {0, 3, 10, 2, 2, 7, 1, 1, 5, 9, 4, 8};
  auto f = [&](Graph& g) { return b->model->forward_tokens(g, ids, 2, 6); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

// GPT-2's shape: tied output head (logits = h E^T, so E gets gradient from both ends), tanh GELU MLP.
TEST(Transformer, TiedEmbeddingsGeluTanhGradients) {
  ModelConfig m = small_model();
  m.input = InputKind::tokens;
  m.vocab_size = 11;
  m.positional = Positional::learned;
  m.norm = NormKind::layer_norm;
  m.mlp_hidden = 12;
  m.mlp_activation = Activation::gelu_tanh;
  m.bias = true;
  m.output_head = true;
  m.tie_embeddings = true;
  auto b = build(m, {11, 11, 6});
  EXPECT_FALSE(b->store.contains("output_head.weight")) << "the head is the embedding";
  EXPECT_FALSE(b->store.contains("output_head.bias"));
  const int32_t ids[2 * 6] = {0, 3, 10, 2, 2, 7, 1, 1, 5, 9, 4, 8};
  // One logit per embedding row (the values are checked against PyTorch in tests/models/gpt2_loader_test.cpp).
  {
    Graph g;
    NoGradGuard guard(g);
    const Tensor logits = b->model->forward_tokens(g, ids, 2, 6);
    ASSERT_EQ(logits.shape(), (Shape{2, 6, 11}));
  }
  auto f = [&](Graph& g) { return b->model->forward_tokens(g, ids, 2, 6); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

TEST(Transformer, TiedEmbeddingsNeedTokensAndMatchingWidth) {
  ModelConfig m = small_model();
  m.output_head = true;
  m.tie_embeddings = true;
  EXPECT_THROW(build(m, {8, 8, 6}), std::invalid_argument);  // vector input: no embedding to tie
  m.input = InputKind::tokens;
  m.vocab_size = 11;
  EXPECT_THROW(build(m, {11, 7, 6}), std::invalid_argument);  // the task wants 7 outputs, not 11
}

TEST(Transformer, ProjectedInputSinusoidalLayerNormGeluHead) {
  ModelConfig m = small_model();
  m.input_projection = true;
  m.positional = Positional::sinusoidal;
  m.norm = NormKind::layer_norm;
  m.mlp_hidden = 12;
  m.bias = true;
  m.output_head = true;
  auto b = build(m, {5, 3, 6});
  EXPECT_TRUE(b->store.contains("input_proj.weight"));
  std::vector<float> xs;
  const Tensor x = testing::random_tensor(xs, Shape{2, 6, 5}, 4);
  auto f = [&](Graph& g) { return b->model->forward(g, x); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

TEST(Transformer, RopeAttentionOnlyStack) {
  ModelConfig m = small_model();
  m.positional = Positional::rope;
  auto b = build(m, {8, 8, 6});
  std::vector<float> xs;
  const Tensor x = testing::random_tensor(xs, Shape{2, 6, 8}, 5);
  auto f = [&](Graph& g) { return b->model->forward(g, x); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

// The open checkpoints' architectures (models/open_models/): Llama's grouped-query heads, halves-paired
// partial RoPE with llama3 scaling, q/k RMSNorm, a gated SiLU MLP, per-group biases (Qwen2's q/k/v only)
// and a sliding window; GPT-NeoX's parallel residual; OPT's offset learned positions. Every parameter's
// gradient against finite differences.
TEST(Transformer, OpenModelArchitecturesGradients) {
  ModelConfig m = small_model();
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = {HeadDimMode::fixed, 4};
  m.input = InputKind::tokens;
  m.vocab_size = 11;
  m.positional = Positional::rope;
  m.rope.pairing = RopePairing::halves;
  m.rope.dims = 2;
  m.rope.theta = 500;
  m.rope.scaling = RopeScaling::llama3;
  m.rope.factor = 4;
  m.rope.original_max_positions = 8;
  m.attention.qk_norm = true;
  m.attention.window = 3;
  m.attention.qkv_bias = BiasSwitch::on;
  m.norm = NormKind::rms_norm;
  m.norm_eps = 1e-6;
  m.mlp_hidden = 12;
  m.mlp_gated = true;
  m.mlp_activation = Activation::silu;
  m.output_head = true;
  auto b = build(m, {11, 11, 6});
  for (const char* name : {"blocks.0.attn.q_norm.weight", "blocks.0.attn.w_q.bias", "blocks.0.mlp.up.weight"})
    EXPECT_TRUE(b->store.contains(name)) << name;
  EXPECT_FALSE(b->store.contains("blocks.0.attn.w_o.bias"));
  EXPECT_EQ(b->store.tensor("blocks.0.attn.w_k.weight").shape(), (Shape{8, 8})) << "2 kv heads of 4";
  const int32_t ids[2 * 6] = {0, 3, 10, 2, 2, 7, 1, 1, 5, 9, 4, 8};
  auto f = [&](Graph& g) { return b->model->forward_tokens(g, ids, 2, 6); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

TEST(Transformer, ParallelResidualAndOffsetPositionsGradients) {
  ModelConfig m = small_model();
  m.input = InputKind::tokens;
  m.vocab_size = 11;
  m.positional = Positional::learned;
  m.position_offset = 2;
  m.norm = NormKind::layer_norm;
  m.parallel_residual = true;
  m.mlp_hidden = 12;
  m.bias = true;
  m.output_head = true;
  m.output_head_bias = BiasSwitch::off;
  auto b = build(m, {11, 11, 6});
  EXPECT_EQ(b->store.tensor("pos_embedding.weight").shape(), (Shape{8, 8})) << "6 positions from row 2";
  EXPECT_FALSE(b->store.contains("output_head.bias"));
  const int32_t ids[2 * 6] = {0, 3, 10, 2, 2, 7, 1, 1, 5, 9, 4, 8};
  auto f = [&](Graph& g) { return b->model->forward_tokens(g, ids, 2, 6); };
  testing::GradcheckOptions o;
  o.max_checks_per_tensor = 12;
  EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
}

// Without a residual each layer returns W_O sum_k a_ik W_V x_k of the previous layer's output; row 0
// sees only itself, so through the stack it is M_{L-1} ... M_0 x_0 with M_l = sum_h W_O^(h) W_V^(h).
// One layer is the paper's single-layer model; two are Theorem 2's pure attention stack.
TEST(Transformer, WithoutResidualEveryLayerReadsOnlyTheLastOnesOutput) {
  for (const int layers : {1, 2}) {
    ModelConfig m = small_model();
    m.layers = layers;
    m.heads = layers;
    m.head_dim = {HeadDimMode::full, 0};
    m.residual = false;
    auto b = build(m, {8, 8, 5});
    std::vector<float> xs;
    const Tensor x = testing::random_tensor(xs, Shape{2, 5, 8}, 6 + layers);
    Graph g;
    const Tensor out = b->model->forward(g, x);
    std::vector<double> row(xs.begin(), xs.begin() + 8);
    for (int l = 0; l < layers; ++l) row = value_map(b->store, l, row);
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_NEAR(out.at({0, 0, c}), row[static_cast<size_t>(c)], 1e-5) << layers << " layers";
    auto f = [&](Graph& graph) { return b->model->forward(graph, x); };
    testing::GradcheckOptions o;
    o.max_checks_per_tensor = 12;
    EXPECT_TRUE(testing::check_parameter_gradients(b->store, f, o));
  }
}

TEST(Transformer, WidthMismatchIsAClearError) {
  ModelConfig m = small_model();
  ParameterStore store;
  try {
    Transformer model(store, m, {16, 16, 8});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("input_projection"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab
