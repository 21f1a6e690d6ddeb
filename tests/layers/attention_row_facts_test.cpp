// The per-row facts attention hands its observers: value norms per key and virtual mass per row,
// on numbers small enough to check by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layers/attention_row_facts.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

// H = 2 heads of width D = 2, C = 3 output channels, one sample, one position.
// v[0] = (1, 2), v[1] = (0, 1); W_O [3, 4] = [[1, 0, 2, 0], [0, 1, 0, 0], [1, 1, 0, 3]]:
// u_0 = W_O^0 v[0] = (1, 2, 3), u_1 = W_O^1 v[1] = (0, 0, 3).
TEST(AttentionRowFacts, ValueNormsAreTheNormsOfEachHeadsShareOfTheOutput) {
  const std::vector<float> v = {1, 2, 0, 1};
  const std::vector<float> w_o = {1, 0, 2, 0, 0, 1, 0, 0, 1, 1, 0, 3};
  std::vector<float> norms(2, -1.0f), norms_v(2, -1.0f);
  std::vector<double> gram(2 * 2 * 2, -1.0);
  fill_value_norms(v.data(), w_o.data(), 2, 1, 1, 2, 3, gram.data(), norms.data(), norms_v.data());
  EXPECT_FLOAT_EQ(norms[0], std::sqrt(14.0f));
  EXPECT_FLOAT_EQ(norms[1], 3.0f);
  EXPECT_FLOAT_EQ(norms_v[0], std::sqrt(5.0f));
  EXPECT_FLOAT_EQ(norms_v[1], 1.0f);
}

// softmax_n's exact slot share equals 1 - row sum; softmax has none; relu's is undefined (NaN).
TEST(AttentionRowFacts, VirtualMassFollowsTheNormalizersRowMassKind) {
  const int T = 3;
  const std::vector<float> scores = {0.5f, 0, 0, -1.0f, 2.0f, 0, 0.3f, 0.1f, -0.2f};  // [1, 1, 3, 3]
  for (const char* name : {"softmax_n", "softmax", "relu"}) {
    SCOPED_TRACE(name);
    NormalizerConfig config;
    config.name = name;
    const auto norm = normalizer_registry().create(config);
    std::vector<float> probs(scores.size()), virtual_mass(T);
    norm->forward_block(scores.data(), probs.data(), T, 0, nullptr, nullptr);
    fill_virtual_mass(*norm, scores.data(), probs.data(), nullptr, 1, 1, T, virtual_mass.data());
    for (int i = 0; i < T; ++i) {
      float row_sum = 0.0f;
      for (int k = 0; k <= i; ++k) row_sum += probs[static_cast<size_t>(i * T + k)];
      if (std::string(name) == "relu") EXPECT_TRUE(std::isnan(virtual_mass[static_cast<size_t>(i)]));
      else if (std::string(name) == "softmax") EXPECT_EQ(virtual_mass[static_cast<size_t>(i)], 0.0f);
      else {
        EXPECT_GT(virtual_mass[static_cast<size_t>(i)], 0.05f);
        EXPECT_NEAR(virtual_mass[static_cast<size_t>(i)], 1.0f - row_sum, 1e-6f);
      }
    }
  }
}

// At GPT-2's head shape the Gram form equals the direct product ||W_O^h v|| in double to float precision,
// for every head, sample and position (W_O^h's columns are strided inside the [C, H * D] matrix).
TEST(AttentionRowFacts, ValueNormsThroughTheGramMatrixEqualTheDirectProduct) {
  const int64_t H = 3, B = 2, T = 5, D = 64, C = 96;
  std::vector<float> v(static_cast<size_t>(H * B * T * D)), w_o(static_cast<size_t>(C * H * D));
  uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<float>(static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5);
  };
  for (float& x : v) x = next();
  for (float& x : w_o) x = next();
  std::vector<float> norms(static_cast<size_t>(H * B * T)), norms_v(norms.size());
  std::vector<double> gram(static_cast<size_t>(H * D * D));
  fill_value_norms(v.data(), w_o.data(), H, B, T, D, C, gram.data(), norms.data(), norms_v.data());
  for (int64_t row = 0; row < H * B * T; ++row) {
    const int64_t h = row / (B * T);
    double u_sq = 0, v_sq = 0;
    for (int64_t c = 0; c < C; ++c) {
      double u = 0;
      for (int64_t d = 0; d < D; ++d) u += static_cast<double>(w_o[static_cast<size_t>(c * H * D + h * D + d)]) *
                                           v[static_cast<size_t>(row * D + d)];
      u_sq += u * u;
    }
    for (int64_t d = 0; d < D; ++d) v_sq += static_cast<double>(v[static_cast<size_t>(row * D + d)]) *
                                            v[static_cast<size_t>(row * D + d)];
    EXPECT_FLOAT_EQ(norms[static_cast<size_t>(row)], static_cast<float>(std::sqrt(u_sq))) << row;
    EXPECT_FLOAT_EQ(norms_v[static_cast<size_t>(row)], static_cast<float>(std::sqrt(v_sq))) << row;
  }
}

}  // namespace
}  // namespace sinklab
