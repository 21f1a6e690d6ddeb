// Observers see exactly the weights the forward pass used: recomputing the layer output from the
// observed view (weights x V x W_O) reproduces the layer's output; a dropped registration stops the
// callbacks; with no observer the forward runs unobserved.
#include <gtest/gtest.h>

#include "layers/multi_head_attention.h"
#include "tests/support/gradcheck.h"

namespace sinklab {
namespace {

class CopyingObserver : public AttentionObserver {
 public:
  void on_attention(const AttentionView& v) override {
    ++calls;
    view = v;
    // Gathered batch-major, [B, H, T, T], through the view's block layout.
    weights.clear();
    scores.clear();
    const int64_t TT = v.seq_len * v.seq_len;
    for (int64_t b = 0; b < v.batch; ++b)
      for (int64_t h = 0; h < v.heads; ++h) {
        weights.insert(weights.end(), v.weights_block(b, h), v.weights_block(b, h) + TT);
        if (v.scores) scores.insert(scores.end(), v.scores_block(b, h), v.scores_block(b, h) + TT);
      }
  }
  bool wants_scores() const override { return want_scores; }
  int calls = 0;
  bool want_scores = false;
  AttentionView view;
  std::vector<float> weights, scores;
};

TEST(AttentionObserver, ViewEqualsTheWeightsUsedInForward) {
  const int64_t B = 2, T = 5, C = 4, H = 2, D = 3;
  ParameterStore store;
  AttentionObservers observers;
  AttentionSpec spec{static_cast<int>(C), static_cast<int>(H), static_cast<int>(D), false, false, {}, 0, {}, 1e-5f};
  MultiHeadAttention attn(store, "attn", spec, InitSpec{InitKind::normal, 0.7f}, 3, &observers);
  store.finalize();
  Rng rng(5);
  attn.initialize(rng);
  std::vector<float> xs;
  const Tensor x = testing::random_tensor(xs, Shape{B, T, C}, 9);

  CopyingObserver obs;
  obs.want_scores = true;
  Graph g;
  Tensor out;
  {
    auto registration = observers.observe(obs);
    out = attn.forward(g, x);
  }
  ASSERT_EQ(obs.calls, 1);
  EXPECT_EQ(obs.view.layer, 3);
  EXPECT_EQ(obs.view.heads, H);
  ASSERT_FALSE(obs.scores.empty());

  // Recompute out = concat_h(W_h V_h) W_O^T from the observed weights.
  const Tensor wv = store.tensor("attn.w_v.weight"), wo = store.tensor("attn.w_o.weight");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t c = 0; c < C; ++c) {
        double acc = 0;
        for (int64_t h = 0; h < H; ++h)
          for (int64_t d = 0; d < D; ++d) {
            double o = 0;
            for (int64_t k = 0; k < T; ++k) {
              double v = 0;
              for (int64_t e = 0; e < C; ++e) v += wv.at({h * D + d, e}) * x.at({b, k, e});
              o += obs.weights[static_cast<size_t>(((b * H + h) * T + i) * T + k)] * v;
            }
            acc += wo.at({c, h * D + d}) * o;
          }
        EXPECT_NEAR(out.at({b, i, c}), acc, 1e-5) << b << "," << i << "," << c;
      }
  // Rows of softmax weights sum to one and the observed scores are the pre-normalizer logits.
  for (int64_t r = 0; r < B * H * T; ++r) {
    double s = 0;
    for (int64_t k = 0; k < T; ++k) s += obs.weights[static_cast<size_t>(r * T + k)];
    EXPECT_NEAR(s, 1.0, 1e-5);
  }

  g.reset();
  attn.forward(g, x);  // registration dropped: no callback
  EXPECT_EQ(obs.calls, 1);
}

}  // namespace
}  // namespace sinklab
