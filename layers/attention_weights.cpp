#include "layers/attention_weights.h"

#include "core/kernels/elementwise_layout.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {
namespace {

struct Layout {
  int64_t heads, batch, seq;
};

Layout layout_of(const Tensor& scores) { return {scores.dim(0), scores.dim(1), scores.dim(2)}; }

// What the op keeps on the tape (offsets in floats): [H*B, scratch_len] row scratch |
// [H*B, P] per-(head, batch) parameter gradients, reduced in a fixed order after the parallel loop |
// [H, B, T, T] a throwaway dscores when the scores need no gradient (but head parameters do).
struct SavedLayout {
  int64_t scratch_len, params_offset, sink_offset, total;
};

SavedLayout saved_layout(int64_t H, int64_t B, int64_t T, int64_t scratch_len, int64_t P, bool scores_need_grad) {
  SavedLayout l{scratch_len, B * H * scratch_len, 0, 0};
  l.sink_offset = l.params_offset + B * H * P;
  l.total = l.sink_offset + (scores_need_grad ? 0 : B * H * T * T);
  return l;
}

struct AttentionWeightsSaved {
  const Normalizer* normalizer;  // the caller's; it outlives the step
  float* kept;                   // arena block laid out as SavedLayout says
};

// scores, probs, dprobs, dscores: [H, B, T, T]; head_params, dparams: [H, P]; dparams_partial: [H, B, P]
void backward_rows(const Node& n) {
  const Tensor& scores = n.inputs[0];
  const Tensor& params = n.inputs[1];
  const Tensor& probs = n.output;
  const auto& payload = n.payload<AttentionWeightsSaved>();
  const Normalizer* norm = payload.normalizer;
  const auto [H, B, T] = layout_of(scores);
  const int P = norm->params_per_head();
  const bool want_scores = scores.requires_grad();
  const bool want_params = P > 0 && params.requires_grad();
  if (!want_scores && !want_params) return;
  const SavedLayout saved = saved_layout(H, B, T, norm->scratch_per_row(static_cast<int>(T)), P, want_scores);
  float* scratch = payload.kept;
  float* dparams_partial = payload.kept + saved.params_offset;
  float* dscores_sink = payload.kept + saved.sink_offset;
  if (want_params) std::fill_n(dparams_partial, B * H * P, 0.0f);

#pragma omp parallel for schedule(static) if (B * H * T * T >= kernels::kParallelMinElements)
  for (int64_t hb = 0; hb < H * B; ++hb) {
    const int h = static_cast<int>(hb / B);
    const int64_t block = hb * T * T;
    float* dscores = want_scores ? scores.grad() + block : dscores_sink + block;
    norm->backward_block(scores.data() + block, probs.data() + block, probs.grad() + block, dscores,
                         static_cast<int>(T), h, P > 0 ? params.data() + h * P : nullptr,
                         want_params ? dparams_partial + hb * P : nullptr, scratch + hb * saved.scratch_len);
  }
  if (want_params)
    for (int64_t hb = 0; hb < H * B; ++hb)
      for (int p = 0; p < P; ++p) params.grad()[(hb / B) * P + p] += dparams_partial[hb * P + p];
}

}  // namespace

Tensor attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer, const Tensor& head_params) {
  if (scores.rank() != 4 || scores.dim(2) != scores.dim(3) || !scores.is_contiguous())
    throw std::invalid_argument("attention_weights: scores must be contiguous [H, B, T, T], got " + scores.shape().str());
  const auto [H, B, T] = layout_of(scores);
  const int P = normalizer.params_per_head();
  if (P > 0 && (!head_params.defined() || head_params.numel() != H * P))
    throw std::invalid_argument("attention_weights: normalizer '" + std::string(normalizer.name()) + "' needs [" +
                                std::to_string(H) + ", " + std::to_string(P) + "] head parameters");
  const bool track = g.needs_grad({scores, head_params});
  Tensor probs = g.new_tensor(scores.shape(), track);
  // Without a recorded node nothing is kept for backward; the dscores sink is only needed when
  // backward runs for the head parameters alone.
  const SavedLayout saved = saved_layout(H, B, T, normalizer.scratch_per_row(static_cast<int>(T)), track ? P : 0,
                                         !track || scores.requires_grad());
  float* scratch = g.scratch(static_cast<size_t>(std::max<int64_t>(saved.total, 1)));

#pragma omp parallel for schedule(static) if (B * H * T * T >= kernels::kParallelMinElements)
  for (int64_t hb = 0; hb < H * B; ++hb) {
    const int h = static_cast<int>(hb / B);
    const int64_t block = hb * T * T;
    normalizer.forward_block(scores.data() + block, probs.data() + block, static_cast<int>(T), h,
                             P > 0 ? head_params.data() + h * P : nullptr, scratch + hb * saved.scratch_len);
  }

  if (track) {
    Node n;
    n.backward = backward_rows;
    n.op = "attention_weights";
    n.inputs = {scores, head_params};
    n.output = probs;
    n.set_payload(AttentionWeightsSaved{&normalizer, scratch});
    g.record(n);
  }
  return probs;
}

}  // namespace sinklab
