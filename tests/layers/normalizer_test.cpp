// Checks every registered normalizer (a new one gets these tests automatically): row gradients,
// exact zeros at masked keys, and the gradient of a whole attention layer built with it.
#include <gtest/gtest.h>

#include <cmath>

#include "core/graph.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/multi_head_attention.h"
#include "layers/normalizers/normalizer_registry.h"
#include "layers/normalizers/softmax_normalizer.h"
#include "tests/support/gradcheck.h"
#include "tests/support/normalizer_variants.h"

namespace sinklab {
namespace {

class EveryNormalizer : public ::testing::TestWithParam<testing::NormalizerVariant> {
 protected:
  NormalizerConfig config() const { return GetParam().config; }
};

// Scores kept away from 0 so that kinks (ReLU) do not sit inside a finite-difference step.
std::vector<float> scores_away_from_kinks(int64_t n, uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  Rng rng(seed);
  for (float& x : v) {
    const float u = rng.uniform(-1.5f, 1.5f);
    x = u >= 0 ? u + 0.1f : u - 0.1f;
  }
  return v;
}

TEST_P(EveryNormalizer, RowGradientsMatchFiniteDifferences) {
  const auto norm = normalizer_registry().create(config());
  const Shape shape{2, 2, 5, 5};
  std::vector<testing::Leaf> leaves{{shape, scores_away_from_kinks(shape.numel(), 7)}};
  const int P = norm->params_per_head();
  if (P > 0) leaves.push_back({Shape{2, P}, {}});
  auto f = [&](Graph& g, std::span<const Tensor> in) {
    return attention_weights(g, in[0], *norm, P > 0 ? in[1] : Tensor());
  };
  EXPECT_TRUE(testing::check_leaf_gradients(f, leaves));
}

TEST_P(EveryNormalizer, MaskedKeysAreExactlyZeroAndGetNoGradient) {
  const auto norm = normalizer_registry().create(config());
  const int64_t B = 2, H = 3, T = 6;
  std::vector<float> scores = scores_away_from_kinks(B * H * T * T, 11), dscores(scores.size(), 0.0f);
  Graph g;
  const int P = norm->params_per_head();
  std::vector<float> params(static_cast<size_t>(std::max<int64_t>(B * P, 1)), 0.3f);
  Tensor s(scores.data(), dscores.data(), Shape{B, H, T, T});
  // attention_weights reads [heads, ...]: the first dimension here, B
  Tensor hp = P > 0 ? Tensor(params.data(), nullptr, Shape{B, P}) : Tensor();
  Tensor p = attention_weights(g, s, *norm, hp);
  std::vector<float> seed(static_cast<size_t>(p.numel()), 1.0f);
  g.backward(p, seed);
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t k = i + 1; k < T; ++k) {
        const int64_t at = (bh * T + i) * T + k;
        EXPECT_EQ(p.data()[at], 0.0f) << "row " << i << " key " << k;
        EXPECT_EQ(dscores[static_cast<size_t>(at)], 0.0f) << "row " << i << " key " << k;
      }
}

TEST_P(EveryNormalizer, AttentionLayerGradientsMatchFiniteDifferences) {
  for (const bool rope : {false, true}) {
    ParameterStore store;
    AttentionSpec spec;
    spec.d_model = 6;
    spec.heads = 2;
    spec.head_dim = 4;
    spec.bias = true;
    spec.rope = rope;
    spec.config.scale = ScaleKind::inv_sqrt_head_dim;
    spec.config.normalizer = config();
    MultiHeadAttention attn(store, "attn", spec, InitSpec{InitKind::normal, 0.5f}, 0, nullptr);
    store.finalize();
    Rng rng(3);
    attn.initialize(rng);
    std::vector<float> x_values;
    const Tensor x = testing::random_tensor(x_values, Shape{2, 5, 6}, 21);
    auto f = [&](Graph& g) { return attn.forward(g, x); };
    testing::GradcheckOptions options;
    options.skip_kinks = true;  // a relu score crossing 0 inside the step is not a wrong gradient
    EXPECT_TRUE(testing::check_parameter_gradients(store, f, options)) << "rope " << rope;
  }
}

// A normalizer's own block kernel (softmax has one for T <= 16) against the row-by-row default, on
// both sides of 16 keys. dprobs are large at masked keys (they must not leak in) and dscores start
// non-zero (the block must add, and leave masked keys untouched).
TEST_P(EveryNormalizer, BlockKernelMatchesTheRowCalls) {
  const auto norm = normalizer_registry().create(config());
  const int P = norm->params_per_head();
  std::vector<float> params(static_cast<size_t>(std::max(P, 1)), 0.5f);
  for (int T : {1, 2, 7, 15, 16, 17, 20}) {
    SCOPED_TRACE("T = " + std::to_string(T));
    const size_t n = static_cast<size_t>(T * T);
    const std::vector<float> scores = scores_away_from_kinks(T * T, 100 + T);
    std::vector<float> dprobs = scores_away_from_kinks(T * T, 200 + T);
    for (int i = 0; i < T; ++i)
      for (int k = i + 1; k < T; ++k) dprobs[static_cast<size_t>(i * T + k)] = 1e4f;
    std::vector<float> scratch(static_cast<size_t>(std::max(norm->scratch_per_row(T), 1)));
    std::vector<float> block(n, -7.0f), rows(n, -7.0f);
    norm->forward_block(scores.data(), block.data(), T, 0, params.data(), scratch.data());
    norm->Normalizer::forward_block(scores.data(), rows.data(), T, 0, params.data(), scratch.data());
    std::vector<float> dblock = scores_away_from_kinks(T * T, 300 + T), drows = dblock;
    std::vector<float> dparams_block(params.size(), 0.0f), dparams_rows(params.size(), 0.0f);
    norm->backward_block(scores.data(), rows.data(), dprobs.data(), dblock.data(), T, 0, params.data(),
                         dparams_block.data(), scratch.data());
    norm->Normalizer::backward_block(scores.data(), rows.data(), dprobs.data(), drows.data(), T, 0, params.data(),
                                     dparams_rows.data(), scratch.data());
    for (int i = 0; i < T; ++i)
      for (int k = 0; k < T; ++k) {
        const size_t at = static_cast<size_t>(i * T + k);
        if (k > i) {
          EXPECT_EQ(block[at], 0.0f) << "masked prob at row " << i << " key " << k;
          EXPECT_EQ(dblock[at], drows[at]) << "masked dscore at row " << i << " key " << k;
        }
        EXPECT_NEAR(block[at], rows[at], 1e-6f) << "row " << i << " key " << k;
        EXPECT_NEAR(dblock[at], drows[at], 1e-5f * (1.0f + std::fabs(drows[at]))) << "row " << i << " key " << k;
      }
    for (size_t p = 0; p < params.size(); ++p) EXPECT_NEAR(dparams_block[p], dparams_rows[p], 1e-5f);
  }
}

// Evaluation runs attention without gradients: the op must then keep nothing for backward (an
// [H, B, T, T] gradient sink here once cost 32 MB per layer of the medium model's evaluation).
TEST_P(EveryNormalizer, NoGradForwardAllocatesOnlyTheWeights) {
  const auto norm = normalizer_registry().create(config());
  const int64_t H = 2, B = 3, T = 8;
  std::vector<float> scores = scores_away_from_kinks(H * B * T * T, 5);
  std::vector<float> params(static_cast<size_t>(std::max(H * norm->params_per_head(), int64_t{1})), 0.5f);
  const int P = norm->params_per_head();
  Graph g;
  NoGradGuard no_grad(g);
  const Tensor s(scores.data(), nullptr, Shape{H, B, T, T});  // as a no-grad matmul returns them
  const Tensor hp = P > 0 ? Tensor(params.data(), nullptr, Shape{H, P}) : Tensor();
  const size_t before = g.arena().used();
  attention_weights(g, s, *norm, hp);
  const size_t weights = static_cast<size_t>(H * B * T * T);
  const size_t row_scratch = static_cast<size_t>(H * B * norm->scratch_per_row(static_cast<int>(T)));
  EXPECT_LE(g.arena().used() - before, weights + row_scratch + 32);  // + alignment padding
}

INSTANTIATE_TEST_SUITE_P(Zoo, EveryNormalizer, ::testing::ValuesIn(testing::normalizer_variants()),
                         [](const auto& info) { return info.param.label; });

TEST(NormalizerRegistry, UnknownNameListsKnownNames) {
  NormalizerConfig c;
  c.name = "softmaxx";
  try {
    normalizer_registry().create(c);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("softmaxx"), std::string::npos);
    EXPECT_NE(msg.find("softmax"), std::string::npos);
    EXPECT_NE(msg.find("relu"), std::string::npos);
  }
}

// The paper's ReLU attention on 4 tokens, by hand: a_ik = ReLU(s_ik) / max(i, 1).
TEST(ReluNormalizer, VisibleNonBosDivisorOnHandComputedExample) {
  NormalizerConfig c;
  c.name = "relu";
  c.options.set("divisor", std::string("visible_non_bos"));
  const auto norm = normalizer_registry().create(c);
  std::vector<float> s = {
      2.0f,  9.0f, 9.0f,  9.0f,   // row 0: only BOS visible -> 2 / 1
      -1.0f, 3.0f, 9.0f,  9.0f,   // row 1: [0, 3] / 1
      4.0f,  -2.0f, 1.0f, 9.0f,   // row 2: [4, 0, 1] / 2
      0.5f,  1.5f, -3.0f, 6.0f};  // row 3: [0.5, 1.5, 0, 6] / 3
  Graph g;
  NoGradGuard no_grad(g);
  Tensor p = attention_weights(g, Tensor(s.data(), nullptr, Shape{1, 1, 4, 4}), *norm, Tensor());
  const std::vector<float> expected = {2.0f, 0, 0, 0, 0, 3.0f, 0, 0, 2.0f, 0, 0.5f, 0, 0.5f / 3, 0.5f, 0, 2.0f};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(p.data()[i], expected[i]) << "entry " << i;
}

TEST(ReluNormalizer, OtherDivisors) {
  RowSpec row{3, 4, 16, 0};
  for (auto [divisor, expected] : {std::pair{"visible", 4.0f}, {"seq_len", 16.0f}, {"none", 1.0f},
                                   {"visible_non_bos", 3.0f}}) {
    NormalizerConfig c;
    c.name = "relu";
    c.options.set("divisor", std::string(divisor));
    const auto norm = normalizer_registry().create(c);
    const float s[4] = {1.0f, 2.0f, -1.0f, 8.0f};
    float p[4];
    norm->forward_row(s, p, row, nullptr, nullptr);
    EXPECT_FLOAT_EQ(p[3], 8.0f / expected);
    EXPECT_FLOAT_EQ(p[2], 0.0f);
  }
}

TEST(SoftmaxNormalizer, TemperatureSharpensAndRowsSumToOne) {
  RowSpec row{2, 3, 3, 0};
  const float s[3] = {0.0f, 1.0f, 2.0f};
  float warm[3], cold[3];
  SoftmaxNormalizer(2.0f).forward_row(s, warm, row, nullptr, nullptr);
  SoftmaxNormalizer(0.5f).forward_row(s, cold, row, nullptr, nullptr);
  EXPECT_NEAR(warm[0] + warm[1] + warm[2], 1.0f, 1e-6f);
  EXPECT_NEAR(cold[0] + cold[1] + cold[2], 1.0f, 1e-6f);
  EXPECT_GT(cold[2], warm[2]);
  EXPECT_NEAR(warm[2] / warm[1], std::exp(0.5f), 1e-5f);
}

}  // namespace
}  // namespace sinklab
