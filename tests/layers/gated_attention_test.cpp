// Gated attention (gated_softmax): each head's output times sigmoid(x W_g^T) before W_O, one gate
// per head or per channel. Gradients of the whole layer (W_g included) against finite differences;
// a gate held at 1 reproduces plain softmax attention, a gate held at 1/2 halves the heads' output;
// observers see the mean gate per row and 1 - gate as the row's virtual mass.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/multi_head_attention.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

constexpr int64_t kBatch = 2, kSeq = 5, kWidth = 6, kHeads = 2, kHeadDim = 4;

AttentionSpec spec_with(const std::string& normalizer, const std::string& gate, bool bias, bool rope = false,
                        int heads = kHeads) {
  AttentionSpec spec;
  spec.d_model = kWidth;
  spec.heads = heads;
  spec.head_dim = kHeadDim;
  spec.bias = bias;
  spec.rope = rope;
  spec.config.scale = ScaleKind::inv_sqrt_head_dim;
  spec.config.normalizer.name = normalizer;
  if (!gate.empty()) spec.config.normalizer.options.set("gate", gate);
  return spec;
}

int64_t gates_per_head(const std::string& gate) { return gate == "elementwise" ? kHeadDim : 1; }

class GateKind : public ::testing::TestWithParam<std::string> {};

TEST_P(GateKind, AttentionLayerGradientsMatchFiniteDifferences) {
  for (const bool bias : {false, true})
    for (const bool rope : {false, true}) {
      ParameterStore store;
      MultiHeadAttention attn(store, "attn", spec_with("gated_softmax", GetParam(), bias, rope),
                              InitSpec{InitKind::normal, 0.5f}, 0, nullptr);
      store.finalize();
      Rng rng(3);
      attn.initialize(rng);
      ASSERT_EQ(store.tensor("attn.gate.weight").shape(), (Shape{kHeads * gates_per_head(GetParam()), kWidth}));
      std::vector<float> x_values;
      const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
      auto f = [&](Graph& g) { return attn.forward(g, x); };
      EXPECT_TRUE(testing::check_parameter_gradients(store, f)) << "bias " << bias << " rope " << rope;
    }
}

// The gate held at a constant sigmoid(b) (W_g = 0, bias b): b = 100 gives exactly 1 in float32, the
// plain softmax layer; b = 0 gives 1/2, half of every head's output (W_O's bias is not gated).
TEST_P(GateKind, ConstantGateScalesPlainSoftmaxAttention) {
  ParameterStore plain_store, gated_store;
  MultiHeadAttention plain(plain_store, "attn", spec_with("softmax", "", true), InitSpec{InitKind::normal, 0.5f}, 0,
                           nullptr);
  MultiHeadAttention gated(gated_store, "attn", spec_with("gated_softmax", GetParam(), true),
                           InitSpec{InitKind::normal, 0.5f}, 0, nullptr);
  plain_store.finalize();
  gated_store.finalize();
  Rng rng_a(3), rng_b(3);
  plain.initialize(rng_a);
  gated.initialize(rng_b);
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
  Tensor w_g = gated_store.tensor("attn.gate.weight"), b_g = gated_store.tensor("attn.gate.bias");
  std::fill_n(w_g.data(), w_g.numel(), 0.0f);
  const Tensor b_o = plain_store.tensor("attn.w_o.bias");
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor want = plain.forward(g, x);
  for (const float gate_bias : {100.0f, 0.0f}) {
    std::fill_n(b_g.data(), b_g.numel(), gate_bias);
    const float gate = gate_bias > 0 ? 1.0f : 0.5f;
    const Tensor got = gated.forward(g, x);
    for (int64_t i = 0; i < want.numel(); ++i) {
      const float b = b_o.data()[i % kWidth];
      EXPECT_NEAR(got.data()[i], gate * (want.data()[i] - b) + b, 1e-6f) << "gate " << gate << " entry " << i;
    }
  }
}

class GateObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    ASSERT_NE(v.gate, nullptr);
    ASSERT_NE(v.virtual_mass, nullptr);
    gate.assign(v.gate, v.gate + v.heads * v.batch * v.seq_len);
    virtual_mass.assign(v.virtual_mass, v.virtual_mass + v.heads * v.batch * v.seq_len);
  }
  std::vector<float> gate, virtual_mass;
};

// One head (the paper's 1x1 model), observed as on a logged step: the gate keeps its
// [1, B*T, width] shape and observers see one mean gate per row; the first zoo sweep found a
// single-head shape error on exactly this path.
TEST_P(GateKind, SingleHeadIsObservedAndItsGradientsMatchFiniteDifferences) {
  ParameterStore store;
  AttentionObservers observers;
  MultiHeadAttention attn(store, "attn", spec_with("gated_softmax", GetParam(), false, false, 1),
                          InitSpec{InitKind::normal, 0.5f}, 0, &observers);
  store.finalize();
  Rng rng(5);
  attn.initialize(rng);
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 22);
  GateObserver seen;
  {
    const auto registration = observers.observe(seen);
    Graph g;
    attn.forward(g, x);
  }
  ASSERT_EQ(seen.gate.size(), static_cast<size_t>(kBatch * kSeq));
  for (float gate : seen.gate) EXPECT_TRUE(gate > 0.0f && gate < 1.0f);
  auto f = [&](Graph& g) { return attn.forward(g, x); };
  EXPECT_TRUE(testing::check_parameter_gradients(store, f));
}

// W_g = 0 and a bias per gate: every row of head h sees the mean of sigmoid(bias) over its channels.
TEST_P(GateKind, ObserversSeeTheMeanGateAndOneMinusItAsVirtualMass) {
  ParameterStore store;
  AttentionObservers observers;
  MultiHeadAttention attn(store, "attn", spec_with("gated_softmax", GetParam(), true), InitSpec{InitKind::normal, 0.5f},
                          0, &observers);
  store.finalize();
  Rng rng(3);
  attn.initialize(rng);
  Tensor w_g = store.tensor("attn.gate.weight"), b_g = store.tensor("attn.gate.bias");
  std::fill_n(w_g.data(), w_g.numel(), 0.0f);
  for (int64_t c = 0; c < b_g.numel(); ++c) b_g.data()[c] = -1.0f + 0.3f * static_cast<float>(c);
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
  GateObserver obs;
  Graph g;
  auto registration = observers.observe(obs);
  attn.forward(g, x);
  ASSERT_EQ(obs.gate.size(), static_cast<size_t>(kHeads * kBatch * kSeq));
  const int64_t G = gates_per_head(GetParam());
  for (int64_t h = 0; h < kHeads; ++h) {
    double mean = 0;
    for (int64_t c = 0; c < G; ++c) mean += 1.0 / (1.0 + std::exp(-b_g.data()[h * G + c]));
    mean /= static_cast<double>(G);
    for (int64_t r = 0; r < kBatch * kSeq; ++r) {
      const size_t at = static_cast<size_t>(h * kBatch * kSeq + r);
      EXPECT_NEAR(obs.gate[at], mean, 1e-6) << "head " << h << " row " << r;
      EXPECT_NEAR(obs.virtual_mass[at], 1.0 - mean, 1e-6) << "head " << h << " row " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gates, GateKind, ::testing::Values("per_head", "elementwise"),
                         [](const auto& info) { return info.param; });

TEST(GatedAttention, PlainAttentionReportsNoGate) {
  ParameterStore store;
  AttentionObservers observers;
  MultiHeadAttention attn(store, "attn", spec_with("softmax", "", false), InitSpec{InitKind::normal, 0.5f}, 0,
                          &observers);
  store.finalize();
  EXPECT_THROW(store.tensor("attn.gate.weight"), std::exception);
  Rng rng(3);
  attn.initialize(rng);
  struct NoGate : AttentionObserver {
    void on_attention(const AttentionView& v) override { gate_seen = v.gate != nullptr; }
    bool gate_seen = true;
  } obs;
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
  Graph g;
  auto registration = observers.observe(obs);
  attn.forward(g, x);
  EXPECT_FALSE(obs.gate_seen);
}

}  // namespace
}  // namespace sinklab
