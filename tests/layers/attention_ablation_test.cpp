// Ablations of the BOS key inside attention (layers/attention_ablation.h): mask_bos_key renormalizes
// rows i >= 1 over keys 1..i with the row's own position (checked by hand for softmax and relu, and
// against the row call for every normalizer variant, with and without the key-bias slot);
// zero_bos_weight zeroes exactly column 0; heads the mask leaves out are bitwise unchanged; a graph
// that tracks gradients is refused; head lists and modes parse or fail with one clear message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/attention_ablation.h"
#include "layers/attention_weights.h"
#include "layers/multi_head_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/support/gradcheck.h"
#include "tests/support/normalizer_variants.h"

namespace sinklab {
namespace {

constexpr int64_t kHeads = 2, kBatch = 2, kSeq = 7;

std::unique_ptr<Normalizer> make_normalizer(const std::string& name) {
  NormalizerConfig config;
  config.name = name;
  return normalizer_registry().create(config);
}

// Per-head parameters at the normalizer's initial values, [H, P] (undefined when P = 0).
Tensor head_params_of(const Normalizer& norm, std::vector<float>& storage) {
  const int P = norm.params_per_head();
  if (P == 0) return Tensor();
  storage.resize(static_cast<size_t>(kHeads * P));
  for (int i = 0; i < kHeads * P; ++i) storage[static_cast<size_t>(i)] = norm.initial_param(i % P) + 0.1f * (i / P);
  return Tensor(storage.data(), nullptr, Shape{kHeads, P});
}

// Weights [H, B, T, T] of the scores under `ablation` (layer 0), copied out of the graph.
std::vector<float> weights_under(const Normalizer& norm, const Tensor& scores, const Tensor& params,
                                 const Tensor& slot_logits, const AttentionAblation& ablation,
                                 std::vector<float>* slot_weights = nullptr) {
  Graph g;
  NoGradGuard no_grad(g);
  const SlotAttentionWeights w = ablated_attention_weights(g, scores, norm, params, slot_logits, ablation, 0);
  if (slot_weights && w.slot_weights) slot_weights->assign(w.slot_weights, w.slot_weights + kHeads * kBatch * kSeq);
  return std::vector<float>(w.weights.data(), w.weights.data() + w.weights.numel());
}

const float* row_of(const std::vector<float>& w, int64_t h, int64_t b, int64_t i) {
  return w.data() + ((h * kBatch + b) * kSeq + i) * kSeq;
}

TEST(AttentionAblation, MaskBosKeyIsSoftmaxOverKeysOneToIByHand) {
  const auto softmax = make_normalizer("softmax");
  std::vector<float> s;
  const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 5, -3.0f, 3.0f);
  const std::vector<float> w =
      weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation(AblationMode::mask_bos_key, {}));
  for (int64_t h = 0; h < kHeads; ++h)
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t i = 1; i < kSeq; ++i) {
        const float* in = scores.data() + ((h * kBatch + b) * kSeq + i) * kSeq;
        double top = in[1], sum = 0;
        for (int64_t k = 1; k <= i; ++k) top = std::max<double>(top, in[k]);
        for (int64_t k = 1; k <= i; ++k) sum += std::exp(in[k] - top);
        const float* a = row_of(w, h, b, i);
        EXPECT_EQ(a[0], 0.0f);
        for (int64_t k = 1; k <= i; ++k) EXPECT_NEAR(a[k], std::exp(in[k] - top) / sum, 2e-6) << h << b << i << k;
        for (int64_t k = i + 1; k < kSeq; ++k) EXPECT_EQ(a[k], 0.0f);
      }
}

// relu divides row i by max(i, 1) with or without key 0: the divisor comes from the row's position.
TEST(AttentionAblation, MaskBosKeyKeepsTheReluDivisorOfTheRow) {
  const auto relu = make_normalizer("relu");
  std::vector<float> s;
  const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 6, -1.0f, 2.0f);
  const std::vector<float> w =
      weights_under(*relu, scores, Tensor(), Tensor(), AttentionAblation(AblationMode::mask_bos_key, {}));
  const std::vector<float> plain = weights_under(*relu, scores, Tensor(), Tensor(), AttentionAblation());
  for (int64_t h = 0; h < kHeads; ++h)
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t i = 1; i < kSeq; ++i) {
        const float* in = scores.data() + ((h * kBatch + b) * kSeq + i) * kSeq;
        const float* a = row_of(w, h, b, i);
        EXPECT_EQ(a[0], 0.0f);
        for (int64_t k = 1; k <= i; ++k) {
          EXPECT_FLOAT_EQ(a[k], std::max(in[k], 0.0f) / static_cast<float>(i)) << h << b << i << k;
          EXPECT_FLOAT_EQ(a[k], row_of(plain, h, b, i)[k]);  // relu: the other keys do not move
        }
      }
}

// Row 0 sees only BOS: there is nothing to renormalize, so it stays as it is.
TEST(AttentionAblation, MaskBosKeyLeavesRowZeroAlone) {
  const auto softmax = make_normalizer("softmax");
  std::vector<float> s;
  const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 7);
  const std::vector<float> w =
      weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation(AblationMode::mask_bos_key, {}));
  const std::vector<float> plain = weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation());
  for (int64_t h = 0; h < kHeads; ++h)
    for (int64_t b = 0; b < kBatch; ++b) EXPECT_EQ(row_of(w, h, b, 0)[0], row_of(plain, h, b, 0)[0]);
  EXPECT_EQ(row_of(w, 0, 0, 0)[0], 1.0f);
}

// Every normalizer variant, with and without the key-bias slot: an ablated row is the normalizer's
// own row call on [slot,] keys 1..i with RowSpec{query = i}; row 0, the slot of row 0 and every
// weight outside the ablated rows are untouched.
class MaskBosKeyWith : public ::testing::TestWithParam<testing::NormalizerVariant> {};

TEST_P(MaskBosKeyWith, EqualsTheRowCallWithoutKeyZero) {
  const auto norm = normalizer_registry().create(GetParam().config);
  std::vector<float> s, slot_values, param_storage;
  const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 11, -2.0f, 2.0f);
  const Tensor params = head_params_of(*norm, param_storage);
  const int P = norm->params_per_head();
  for (const bool slot : {false, true}) {
    SCOPED_TRACE(slot ? "with the key-bias slot" : "without a slot");
    const Tensor slot_logits = slot ? testing::random_tensor(slot_values, Shape{kHeads, kBatch, kSeq}, 12) : Tensor();
    std::vector<float> slot_weights, plain_slot_weights;
    const std::vector<float> w = weights_under(*norm, scores, params, slot_logits,
                                               AttentionAblation(AblationMode::mask_bos_key, {}), &slot_weights);
    const std::vector<float> plain =
        weights_under(*norm, scores, params, slot_logits, AttentionAblation(), slot ? &plain_slot_weights : nullptr);
    const int lead = slot ? 1 : 0;
    std::vector<float> s_row(kSeq + 1), p_row(kSeq + 1),
        scratch(static_cast<size_t>(norm->scratch_per_row(kSeq + 1)) + 1);
    for (int64_t h = 0; h < kHeads; ++h)
      for (int64_t b = 0; b < kBatch; ++b) {
        EXPECT_EQ(row_of(w, h, b, 0)[0], row_of(plain, h, b, 0)[0]);
        if (slot) {
          EXPECT_EQ(slot_weights[(h * kBatch + b) * kSeq], plain_slot_weights[(h * kBatch + b) * kSeq]);
        }
        for (int64_t i = 1; i < kSeq; ++i) {
          const int64_t row = (h * kBatch + b) * kSeq + i;
          if (slot) s_row[0] = slot_values[static_cast<size_t>(row)];
          std::copy_n(scores.data() + row * kSeq + 1, i, s_row.data() + lead);
          const RowSpec spec{static_cast<int>(i), static_cast<int>(i + lead), kSeq, static_cast<int>(h)};
          norm->forward_row(s_row.data(), p_row.data(), spec, P > 0 ? params.data() + h * P : nullptr, scratch.data());
          const float* a = row_of(w, h, b, i);
          EXPECT_EQ(a[0], 0.0f);
          for (int64_t k = 1; k <= i; ++k)
            EXPECT_EQ(a[k], p_row[static_cast<size_t>(k - 1 + lead)]) << h << b << i << k;
          for (int64_t k = i + 1; k < kSeq; ++k) EXPECT_EQ(a[k], 0.0f);
          if (slot) {
            EXPECT_EQ(slot_weights[static_cast<size_t>(row)], p_row[0]);
          }
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Normalizers, MaskBosKeyWith, ::testing::ValuesIn(testing::normalizer_variants()),
                         [](const auto& info) { return info.param.label; });

TEST(AttentionAblation, ZeroBosWeightZeroesExactlyColumnZero) {
  for (const char* name : {"softmax", "relu", "sink_logit"}) {
    SCOPED_TRACE(name);
    const auto norm = make_normalizer(name);
    std::vector<float> s, param_storage;
    const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 13, -2.0f, 2.0f);
    const Tensor params = head_params_of(*norm, param_storage);
    const std::vector<float> w =
        weights_under(*norm, scores, params, Tensor(), AttentionAblation(AblationMode::zero_bos_weight, {}));
    const std::vector<float> plain = weights_under(*norm, scores, params, Tensor(), AttentionAblation());
    int changed = 0;
    for (size_t e = 0; e < w.size(); ++e) {
      if (e % kSeq == 0) {
        EXPECT_EQ(w[e], 0.0f);
        changed += plain[e] != 0.0f;
      } else {
        EXPECT_EQ(w[e], plain[e]) << e;
      }
    }
    EXPECT_GT(changed, 0);  // the test saw BOS weight to remove
  }
}

// Ablating L0H1 leaves head 0 bit for bit as without the ablation, in both modes.
TEST(AttentionAblation, HeadsOutsideTheMaskAreBitwiseUnchanged) {
  const auto softmax = make_normalizer("softmax");
  std::vector<float> s;
  const Tensor scores = testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 17, -2.0f, 2.0f);
  const std::vector<float> plain = weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation());
  const size_t per_head = static_cast<size_t>(kBatch * kSeq * kSeq);
  for (const AblationMode mode : {AblationMode::mask_bos_key, AblationMode::zero_bos_weight}) {
    SCOPED_TRACE(std::string(ablation_mode_name(mode)));
    const std::vector<float> w = weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation(mode, {{0, 1}}));
    EXPECT_TRUE(std::equal(w.begin(), w.begin() + per_head, plain.begin()));
    EXPECT_FALSE(std::equal(w.begin() + per_head, w.end(), plain.begin() + per_head));
    // A mask naming another layer's head leaves this layer alone.
    const std::vector<float> other =
        weights_under(*softmax, scores, Tensor(), Tensor(), AttentionAblation(mode, {{1, 0}}));
    EXPECT_EQ(other, plain);
  }
}

TEST(AttentionAblation, RefusesAGraphThatTracksGradients) {
  const auto softmax = make_normalizer("softmax");
  std::vector<float> s, ds(static_cast<size_t>(kHeads * kBatch * kSeq * kSeq));
  testing::random_tensor(s, Shape{kHeads, kBatch, kSeq, kSeq}, 19);
  const Tensor scores(s.data(), ds.data(), Shape{kHeads, kBatch, kSeq, kSeq});
  Graph g;
  try {
    ablated_attention_weights(g, scores, *softmax, Tensor(), Tensor(),
                              AttentionAblation(AblationMode::mask_bos_key, {}), 0);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("mask_bos_key is for evaluation only"), std::string::npos) << e.what();
  }
}

// Through the attention layer: the model's ablation switches it; the virtual mass observers get
// for a mask_bos_key row is that of the row the normalizer saw (sink_logit: exp(S) / (exp(S) + sum)).
TEST(AttentionAblation, AttentionLayerReadsTheAblationAndReportsTheRenormalizedVirtualMass) {
  AttentionSpec spec;
  spec.d_model = 6;
  spec.heads = 2;
  spec.head_dim = 6;
  spec.config.normalizer.name = "sink_logit";
  AttentionAblation ablation;
  AttentionObservers observers;
  struct Capture : AttentionObserver {
    std::vector<float> weights, virtual_mass;
    void on_attention(const AttentionView& v) override {
      weights.assign(v.weights, v.weights + v.heads * v.batch * v.seq_len * v.seq_len);
      virtual_mass.assign(v.virtual_mass, v.virtual_mass + v.heads * v.batch * v.seq_len);
    }
  } capture;
  const auto registration = observers.observe(capture);
  ParameterStore store;
  MultiHeadAttention attn(store, "attn", spec, InitSpec{InitKind::normal, 0.5f}, 0, &observers, &ablation);
  store.finalize();
  Rng rng(23);
  attn.initialize(rng);
  std::vector<float> x_values;
  const Tensor x = testing::random_tensor(x_values, Shape{1, 5, 6}, 29);
  const auto run = [&] {
    Graph g;
    NoGradGuard no_grad(g);
    const Tensor y = attn.forward(g, x);
    return std::vector<float>(y.data(), y.data() + y.numel());
  };
  const std::vector<float> plain = run();
  const std::vector<float> plain_weights = capture.weights;
  ablation = AttentionAblation(AblationMode::mask_bos_key, {{0, 0}});
  const std::vector<float> ablated = run();
  EXPECT_NE(ablated, plain);
  // Head 1 is not ablated: its weights are the same bits.
  EXPECT_TRUE(std::equal(plain_weights.begin() + 25, plain_weights.end(), capture.weights.begin() + 25));
  // Head 0, row i >= 1: the weights on keys 1..i plus the virtual mass make 1 (the sink logit's share).
  for (int i = 1; i < 5; ++i) {
    double sum = capture.virtual_mass[static_cast<size_t>(i)];
    for (int k = 0; k <= i; ++k) sum += capture.weights[static_cast<size_t>(i * 5 + k)];
    EXPECT_NEAR(sum, 1.0, 1e-6) << i;
    EXPECT_EQ(capture.weights[static_cast<size_t>(i * 5)], 0.0f);
  }
  ablation = AttentionAblation();
  EXPECT_EQ(run(), plain);
}

TEST(AttentionAblation, ParsesModesAndHeadLists) {
  EXPECT_EQ(parse_ablation_mode("mask_bos_key"), AblationMode::mask_bos_key);
  EXPECT_EQ(parse_ablation_mode("zero_bos_weight"), AblationMode::zero_bos_weight);
  EXPECT_EQ(parse_ablation_mode("none"), AblationMode::none);
  EXPECT_TRUE(parse_head_list("all", 2, 2).empty());
  EXPECT_EQ(parse_head_list("L0H1,L1H0", 2, 2), (std::vector<HeadRef>{{0, 1}, {1, 0}}));
  EXPECT_EQ(AttentionAblation(AblationMode::zero_bos_weight, {{0, 1}, {1, 0}}).heads_text("_"), "L0H1_L1H0");
  const auto message = [](auto f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] {
              parse_ablation_mode("mask_bos");
            }).find("unknown mode 'mask_bos' (one of: none, mask_bos_key, zero_bos_weight)"),
            std::string::npos);
  EXPECT_NE(
      message([] { parse_head_list("L0H2", 2, 2); }).find("L0H2 is not a head of this model (2 layer(s) x 2 head(s)"),
      std::string::npos);
  EXPECT_NE(message([] { parse_head_list("L2H0", 2, 2); }).find("L2H0 is not a head of this model"), std::string::npos);
  for (const char* bad : {"l0h1", "L0", "LxH1", "L0H1,", "L-1H0", "L0H1x", ""})
    EXPECT_NE(message([bad] { parse_head_list(bad, 2, 2); }).find("--heads"), std::string::npos) << bad;
  EXPECT_NE(message([] { parse_head_list("L0H1,L0H1", 2, 2); }).find("L0H1 is listed twice"), std::string::npos);
}

}  // namespace
}  // namespace sinklab
