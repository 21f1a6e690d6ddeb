#include "layers/attention_weights.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {
namespace {

constexpr int64_t kParallelMinElements = 1 << 15;  // below this, waking threads costs more than the work

struct Layout {
  int64_t batch, heads, seq;
};

Layout layout_of(const Tensor& scores) { return {scores.dim(0), scores.dim(1), scores.dim(2)}; }

// scores, probs, dprobs, dscores: [B, H, T, T]; head_params, dparams: [H, P]; dparams_partial: [B, H, P]
void backward_rows(const Node& n) {
  const Tensor& scores = n.inputs[0];
  const Tensor& params = n.inputs[1];
  const Tensor& probs = n.output;
  const auto* norm = static_cast<const Normalizer*>(n.context);
  const auto [B, H, T] = layout_of(scores);
  const int P = norm->params_per_head();
  const int scratch_len = norm->scratch_per_row(static_cast<int>(T));
  // n.saved: [B*H, scratch_len] row scratch | [B*H, T] sink for dscores when scores need no gradient |
  //          [B*H, P] per-(batch, head) parameter gradients, reduced in a fixed order below.
  float* scratch = n.saved;
  float* unused_dscores = scratch + B * H * scratch_len;
  float* dparams_partial = unused_dscores + B * H * T;
  const bool want_scores = scores.requires_grad();
  const bool want_params = P > 0 && params.requires_grad();
  if (!want_scores && !want_params) return;
  if (want_params) std::fill_n(dparams_partial, B * H * P, 0.0f);

#pragma omp parallel for schedule(static) if (B * H * T * T >= kParallelMinElements)
  for (int64_t bh = 0; bh < B * H; ++bh) {
    const int h = static_cast<int>(bh % H);
    const float* hp = P > 0 ? params.data() + h * P : nullptr;
    float* dhp = want_params ? dparams_partial + bh * P : nullptr;
    for (int64_t i = 0; i < T; ++i) {
      const int64_t row = (bh * T + i) * T;
      RowSpec spec{static_cast<int>(i), static_cast<int>(i + 1), static_cast<int>(T), h, nullptr};
      float* dscores = want_scores ? scores.grad() + row : unused_dscores + bh * T;
      norm->backward_row(scores.data() + row, probs.data() + row, probs.grad() + row, dscores, spec, hp, dhp,
                         scratch + bh * scratch_len);
    }
  }
  if (want_params)
    for (int64_t bh = 0; bh < B * H; ++bh)
      for (int p = 0; p < P; ++p) params.grad()[(bh % H) * P + p] += dparams_partial[bh * P + p];
}

}  // namespace

Tensor attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer, const Tensor& head_params) {
  if (scores.rank() != 4 || scores.dim(2) != scores.dim(3) || !scores.is_contiguous())
    throw std::invalid_argument("attention_weights: scores must be contiguous [B, H, T, T], got " + scores.shape().str());
  const auto [B, H, T] = layout_of(scores);
  const int P = normalizer.params_per_head();
  if (P > 0 && (!head_params.defined() || head_params.numel() != H * P))
    throw std::invalid_argument("attention_weights: normalizer '" + std::string(normalizer.name()) + "' needs [" +
                                std::to_string(H) + ", " + std::to_string(P) + "] head parameters");
  const bool track = g.needs_grad({scores, head_params});
  Tensor probs = g.new_tensor(scores.shape(), track);
  const int scratch_len = normalizer.scratch_per_row(static_cast<int>(T));
  // Row scratch plus what backward needs (see backward_rows); kept on the tape.
  const int64_t scratch_floats = B * H * (scratch_len + T + P);
  float* scratch = g.scratch(static_cast<size_t>(std::max<int64_t>(scratch_floats, 1)));

#pragma omp parallel for schedule(static) if (B * H * T * T >= kParallelMinElements)
  for (int64_t bh = 0; bh < B * H; ++bh) {
    const int h = static_cast<int>(bh % H);
    const float* hp = P > 0 ? head_params.data() + h * P : nullptr;
    for (int64_t i = 0; i < T; ++i) {
      const int64_t row = (bh * T + i) * T;
      RowSpec spec{static_cast<int>(i), static_cast<int>(i + 1), static_cast<int>(T), h, nullptr};
      normalizer.forward_row(scores.data() + row, probs.data() + row, spec, hp, scratch + bh * scratch_len);
      std::fill(probs.data() + row + i + 1, probs.data() + row + T, 0.0f);
    }
  }

  if (track) {
    Node n;
    n.backward = backward_rows;
    n.op = "attention_weights";
    n.inputs = {scores, head_params};
    n.output = probs;
    n.context = &normalizer;
    n.saved = scratch;
    g.record(n);
  }
  return probs;
}

}  // namespace sinklab
