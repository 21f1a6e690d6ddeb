// sinklab's models against PyTorch golden fixtures (tools/make_golden.py, docs/golden.md): the
// paper's 2-layer 2-head residual attention model with softmax and with relu, and a conventional
// pre-LN block model; the paper's model with sparsemax, entmax15, gated_softmax and the key-bias token. Outputs within
// 1e-5, gradients and 3 Adam steps within 1e-4, each relative to the reference tensor's largest magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/ops/losses.h"
#include "layers/transformer.h"
#include "tests/support/golden_file.h"
#include "train/adam.h"

namespace sinklab {
namespace {

using testing::GoldenFile;
using testing::GoldenTensor;

std::string fixture(const std::string& name) {
  return std::string(SINKLAB_SOURCE_DIR) + "/tests/fixtures/golden/" + name;
}

ModelConfig paper_model(const std::string& normalizer) {
  ModelConfig m;
  m.d_model = 16;
  m.layers = 2;
  m.heads = 2;
  m.head_dim = {HeadDimMode::full, 0};
  m.residual = true;
  m.attention.scale = ScaleKind::none;
  m.attention.normalizer.name = normalizer;
  if (normalizer == "relu") m.attention.normalizer.options.set("divisor", std::string("visible_non_bos"));
  return m;
}

// The paper's model with a zoo normalizer (sparsemax, entmax15, gated_softmax with one gate per head)
// or softmax with the key-bias token (tools/models.py ZooAttnOnlyModel).
ModelConfig zoo_model(const std::string& normalizer, bool key_bias = false) {
  ModelConfig m = paper_model(normalizer);
  m.attention.key_bias = key_bias;
  return m;
}

// Gu et al.'s normalized elu+1: elu1 with divisor row_sum (tools/models.py "elu1").
ModelConfig elu1_row_sum_model() {
  ModelConfig m = paper_model("elu1");
  m.attention.normalizer.options.set("divisor", std::string("row_sum"));
  return m;
}

ModelConfig block_model() {
  ModelConfig m;
  m.d_model = 16;
  m.layers = 2;
  m.heads = 2;
  m.head_dim = {HeadDimMode::split, 0};
  m.residual = true;
  m.norm = NormKind::layer_norm;
  m.mlp_hidden = 32;
  m.mlp_activation = Activation::gelu;
  m.bias = true;
  m.attention.scale = ScaleKind::inv_sqrt_head_dim;
  return m;
}

// max |got - want| <= tol * max(max |want|, floor). The floor matters only for tensors that are zero
// in exact arithmetic (e.g. the key bias gradient: softmax ignores a per-row constant q.b_k); there
// float32 round-off is judged against the gradient scale of the whole model.
::testing::AssertionResult close(const float* got, const GoldenTensor& want, double tol, double floor = 0) {
  double scale = floor, worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < want.values.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(want.values[i])));
    const double d = std::abs(static_cast<double>(got[i]) - want.values[i]);
    if (d > worst) worst = d, worst_at = i;
  }
  if (worst <= tol * std::max(scale, 1e-30)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |diff| " << worst << " at " << worst_at << " (got " << got[worst_at]
                                       << ", want " << want.values[worst_at] << "), allowed " << tol * scale;
}

class ProbeObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    std::vector<float>& w = layers.emplace_back();  // batch-major [B, H, T, T], as the golden file
    for (int64_t b = 0; b < v.batch; ++b)
      for (int64_t h = 0; h < v.heads; ++h)
        w.insert(w.end(), v.weights_block(b, h), v.weights_block(b, h) + v.seq_len * v.seq_len);
  }
  std::vector<std::vector<float>> layers;
};

struct Case {
  const char* file;
  ModelConfig model;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

class GoldenModel : public ::testing::TestWithParam<Case> {};

TEST_P(GoldenModel, MatchesPyTorch) {
  const GoldenFile golden = GoldenFile::load(fixture(GetParam().file));
  const GoldenTensor& input = golden.get("input");
  const GoldenTensor& target = golden.get("target");
  const int64_t B = input.shape[0], T = input.shape[1], D = input.shape[2];

  ParameterStore store;
  Transformer model(store, GetParam().model, ModelShape{static_cast<int>(D), static_cast<int>(D), static_cast<int>(T)});
  store.finalize();
  // Every parameter comes from the fixture, and the fixture has no parameter the model lacks.
  std::set<std::string> fixture_params;
  for (const std::string& n : golden.names())
    if (n.rfind("param.", 0) == 0) fixture_params.insert(n.substr(6));
  for (const ParameterInfo& p : store.parameters()) {
    ASSERT_TRUE(fixture_params.count(p.name)) << "fixture lacks " << p.name;
    const GoldenTensor& v = golden.get("param." + p.name);
    ASSERT_EQ(static_cast<int64_t>(v.values.size()), p.shape.numel()) << p.name;
    std::copy(v.values.begin(), v.values.end(), store.values().begin() + static_cast<std::ptrdiff_t>(p.offset));
    fixture_params.erase(p.name);
  }
  EXPECT_TRUE(fixture_params.empty()) << "model lacks " << *fixture_params.begin();

  std::vector<float> x(input.values), y(target.values);
  const Tensor xt(x.data(), nullptr, Shape{B, T, D}), yt(y.data(), nullptr, Shape{B, T, D});
  ProbeObserver probe;
  Graph g;
  {
    auto registration = model.observers().observe(probe);
    store.zero_grads();
    const Tensor out = model.forward(g, xt);
    const Tensor loss = mse_loss(g, out, yt);
    EXPECT_TRUE(close(out.data(), golden.get("output"), 1e-5)) << "output";
    EXPECT_TRUE(close(loss.data(), golden.get("loss"), 1e-5)) << "loss";
    g.backward(loss);
  }
  double largest_gradient = 0;
  for (const ParameterInfo& p : store.parameters())
    for (float v : golden.get("grad." + p.name).values)
      largest_gradient = std::max(largest_gradient, std::abs(static_cast<double>(v)));
  for (const ParameterInfo& p : store.parameters())
    EXPECT_TRUE(close(store.grads().data() + p.offset, golden.get("grad." + p.name), 1e-4, 1e-3 * largest_gradient))
        << "grad of " << p.name;
  ASSERT_EQ(probe.layers.size(), 2u);
  for (int l = 0; l < 2; ++l)
    EXPECT_TRUE(close(probe.layers[static_cast<size_t>(l)].data(), golden.get("probs.layer" + std::to_string(l)), 1e-5))
        << "attention weights of layer " << l;

  // Three Adam steps: the loss before each and after the last.
  Adam adam(0.9f, 0.95f, 1e-8f, 0.0f, false);
  std::vector<float> losses;
  for (int step = 0; step <= 3; ++step) {
    g.reset();
    store.zero_grads();
    const Tensor loss = mse_loss(g, model.forward(g, xt), yt);
    losses.push_back(loss.data()[0]);
    if (step == 3) break;
    g.backward(loss);
    adam.step(store, 1e-2f);
  }
  EXPECT_TRUE(close(losses.data(), golden.get("adam_losses"), 1e-4)) << "Adam losses";
}

INSTANTIATE_TEST_SUITE_P(PyTorch, GoldenModel,
                         ::testing::Values(Case{"attn2x2_softmax.bin", paper_model("softmax")},
                                           Case{"attn2x2_relu.bin", paper_model("relu")},
                                           Case{"block_prenorm.bin", block_model()},
                                           Case{"attn2x2_sparsemax.bin", zoo_model("sparsemax")},
                                           Case{"attn2x2_entmax15.bin", zoo_model("entmax15")},
                                           Case{"attn2x2_gated_softmax.bin", zoo_model("gated_softmax")},
                                           Case{"attn2x2_key_bias.bin", zoo_model("softmax", true)},
                                           Case{"attn2x2_elu1_row_sum.bin", elu1_row_sum_model()}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

// The zoo normalizers with a virtual slot (softmax_n, sink_logit: the fixture holds
// blocks.{l}.attn.sink_logit), a learned per-head scale (ssmax: blocks.{l}.attn.ssmax_scale) or exact
// zeros (softpick), each with its default options, as tools/models.py writes them.
INSTANTIATE_TEST_SUITE_P(PyTorchSlotScalePick, GoldenModel,
                         ::testing::Values(Case{"attn2x2_softmax_n.bin", paper_model("softmax_n")},
                                           Case{"attn2x2_sink_logit.bin", paper_model("sink_logit")},
                                           Case{"attn2x2_ssmax.bin", paper_model("ssmax")},
                                           Case{"attn2x2_softpick.bin", paper_model("softpick")}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
}  // namespace sinklab
