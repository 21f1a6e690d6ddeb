// The key-bias token (model.attention.key_bias): a learned key per head with value 0, normalized as
// a leading slot of every row. Gradients of the whole layer (k* included) against finite
// differences; the slot's weight completes softmax rows to 1 and is what observers see as virtual
// mass; a slot that gets no weight leaves the layer exactly as it is without one.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/multi_head_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

constexpr int64_t kBatch = 2, kSeq = 5, kWidth = 6, kHeads = 2, kHeadDim = 4;

AttentionSpec spec_with(const std::string& normalizer, bool key_bias, bool rope = false) {
  AttentionSpec spec;
  spec.d_model = kWidth;
  spec.heads = kHeads;
  spec.head_dim = kHeadDim;
  spec.bias = true;
  spec.rope = rope;
  spec.config.scale = ScaleKind::inv_sqrt_head_dim;
  spec.config.normalizer.name = normalizer;
  spec.config.key_bias = key_bias;
  return spec;
}

class KeyBiasWith : public ::testing::TestWithParam<std::string> {};

TEST_P(KeyBiasWith, AttentionLayerGradientsMatchFiniteDifferences) {
  for (const bool rope : {false, true}) {
    ParameterStore store;
    MultiHeadAttention attn(store, "attn", spec_with(GetParam(), true, rope), InitSpec{InitKind::normal, 0.5f}, 0,
                            nullptr);
    store.finalize();
    Rng rng(3);
    attn.initialize(rng);
    ASSERT_EQ(store.tensor("attn.key_bias").shape(), (Shape{kHeads, kHeadDim}));
    std::vector<float> x_values;
    const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
    auto f = [&](Graph& g) { return attn.forward(g, x); };
    testing::GradcheckOptions options;
    options.skip_kinks = true;  // relu / sparsemax support changes inside a step are not wrong gradients
    EXPECT_TRUE(testing::check_parameter_gradients(store, f, options)) << "rope " << rope;
  }
}

// With q_i . k* very negative for every query, the slot gets weight 0 (softmax: exp underflows;
// relu, sparsemax, entmax15: below the support) and the layer equals the one without key bias.
// Turning key_bias on also leaves the other parameters' initialization alone.
TEST_P(KeyBiasWith, ASlotFarBelowTheKeysReproducesTheLayerWithoutIt) {
  ParameterStore plain_store, slot_store;
  MultiHeadAttention plain(plain_store, "attn", spec_with(GetParam(), false), InitSpec{InitKind::normal, 0.5f}, 0,
                           nullptr);
  MultiHeadAttention slotted(slot_store, "attn", spec_with(GetParam(), true), InitSpec{InitKind::normal, 0.5f}, 0,
                             nullptr);
  plain_store.finalize();
  slot_store.finalize();
  Rng rng_a(3), rng_b(3);
  plain.initialize(rng_a);
  slotted.initialize(rng_b);
  // Every query gets a large first component from W_q's bias, and k* points the other way.
  for (ParameterStore* store : {&plain_store, &slot_store}) {
    Tensor q_bias = store->tensor("attn.w_q.bias");
    for (int64_t h = 0; h < kHeads; ++h) q_bias.data()[h * kHeadDim] = 40.0f;
  }
  Tensor k_star = slot_store.tensor("attn.key_bias");
  for (int64_t i = 0; i < k_star.numel(); ++i) k_star.data()[i] = 0.0f;
  for (int64_t h = 0; h < kHeads; ++h) k_star.data()[h * kHeadDim] = -40.0f;
  for (const ParameterInfo& p : plain_store.parameters()) {
    const Tensor a = plain_store.tensor(p.name), b = slot_store.tensor(p.name);
    for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data()[i], b.data()[i]) << p.name << "[" << i << "]";
  }

  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor want = plain.forward(g, x), got = slotted.forward(g, x);
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.data()[i], want.data()[i], 1e-5f * (1.0f + std::fabs(want.data()[i]))) << "entry " << i;
}

INSTANTIATE_TEST_SUITE_P(Normalizers, KeyBiasWith,
                         ::testing::Values("softmax", "relu", "sparsemax", "entmax15", "gated_softmax"),
                         [](const auto& info) { return info.param; });

// softmax over [b_i, s_i0 .. s_ii] by hand; the slot weight and the row add up to 1; gradients of the
// op (scores and slot logits) against finite differences.
TEST(KeyBiasSlot, SoftmaxSlotCompletesTheRow) {
  const auto softmax = normalizer_registry().create(NormalizerConfig{});
  const int64_t H = 2, B = 3, T = 4;
  std::vector<float> scores_values, slot_values;
  const Tensor scores = testing::random_tensor(scores_values, Shape{H, B, T, T}, 5, -2.0f, 2.0f);
  const Tensor slot = testing::random_tensor(slot_values, Shape{H, B, T}, 6, -2.0f, 2.0f);
  Graph g;
  NoGradGuard no_grad(g);
  const SlotAttentionWeights w = attention_weights(g, scores, *softmax, Tensor(), slot);
  for (int64_t r = 0; r < H * B * T; ++r) {
    const int64_t i = r % T;
    double z = std::exp(static_cast<double>(slot.data()[r])), row = w.slot_weights[r];
    for (int64_t k = 0; k <= i; ++k) {
      z += std::exp(static_cast<double>(scores.data()[r * T + k]));
      row += w.weights.data()[r * T + k];
    }
    EXPECT_NEAR(row, 1.0, 1e-6) << "row " << r;
    EXPECT_NEAR(w.slot_weights[r], std::exp(static_cast<double>(slot.data()[r])) / z, 1e-6) << "row " << r;
    for (int64_t k = 0; k <= i; ++k)
      EXPECT_NEAR(w.weights.data()[r * T + k], std::exp(static_cast<double>(scores.data()[r * T + k])) / z, 1e-6);
    for (int64_t k = i + 1; k < T; ++k) EXPECT_EQ(w.weights.data()[r * T + k], 0.0f);
  }
}

TEST(KeyBiasSlot, OpGradientsMatchFiniteDifferences) {
  for (const char* name : {"softmax", "relu", "sparsemax", "entmax15"}) {
    NormalizerConfig config;
    config.name = name;
    const auto norm = normalizer_registry().create(config);
    std::vector<testing::Leaf> leaves{{Shape{2, 2, 5, 5}, {}}, {Shape{2, 2, 5}, {}}};
    auto f = [&](Graph& g, std::span<const Tensor> in) {
      return attention_weights(g, in[0], *norm, Tensor(), in[1]).weights;
    };
    testing::GradcheckOptions options;
    options.skip_kinks = true;
    EXPECT_TRUE(testing::check_leaf_gradients(f, leaves, options)) << name;
  }
}

// Observers see the slot's weight as the row's virtual mass (softmax rows: 1 - the row's mass on keys).
class VirtualMassObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    for (int64_t b = 0; b < v.batch; ++b)
      for (int64_t h = 0; h < v.heads; ++h) {
        const float* vm = v.row_facts(v.virtual_mass, b, h);
        const float* w = v.weights_block(b, h);
        for (int64_t i = 0; i < v.seq_len; ++i) {
          double row = vm[i];
          for (int64_t k = 0; k < v.seq_len; ++k) row += w[i * v.seq_len + k];
          max_error = std::max(max_error, std::fabs(row - 1.0));
          min_virtual = std::min(min_virtual, static_cast<double>(vm[i]));
        }
      }
    ++calls;
  }
  int calls = 0;
  double max_error = 0, min_virtual = 1;
};

TEST(KeyBiasSlot, ObserversSeeTheSlotWeightAsVirtualMass) {
  ParameterStore store;
  AttentionObservers observers;
  MultiHeadAttention attn(store, "attn", spec_with("softmax", true), InitSpec{InitKind::normal, 0.5f}, 0, &observers);
  store.finalize();
  Rng rng(3);
  attn.initialize(rng);
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{kBatch, kSeq, kWidth}, 21);
  VirtualMassObserver obs;
  Graph g;
  auto registration = observers.observe(obs);
  attn.forward(g, x);
  ASSERT_EQ(obs.calls, 1);
  EXPECT_LT(obs.max_error, 1e-6);
  EXPECT_GT(obs.min_virtual, 0.0);  // softmax gives the slot some weight in every row
}

}  // namespace
}  // namespace sinklab
