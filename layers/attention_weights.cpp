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

// Rows with a leading slot never fit the [T, T] blocks, so they go through the row calls: each
// (head, batch) block owns a row buffer of 4 rows of T + 1 values (scores, probs, dprobs, dscores
// with the slot first) plus the normalizer's scratch for T + 1 keys. What the op keeps (offsets in
// floats): [H*B, row_buffer] | [H*B, P] parameter gradients per block | [H, B, T] slot weights.
struct SlotLayout {
  int64_t row_buffer, params_offset, slot_offset, total;
};

SlotLayout slot_layout(int64_t H, int64_t B, int64_t T, int scratch_len, int64_t P) {
  SlotLayout l{4 * (T + 1) + scratch_len, 0, 0, 0};
  l.params_offset = H * B * l.row_buffer;
  l.slot_offset = l.params_offset + H * B * P;
  l.total = l.slot_offset + H * B * T;
  return l;
}

struct SlotWeightsSaved {
  const Normalizer* normalizer;  // the caller's; it outlives the step
  float* kept;                   // arena block laid out as SlotLayout says
};

// scores, probs, dprobs, dscores: [H, B, T, T]; slot logits and their gradient: [H, B, T]
void backward_slot_rows(const Node& n) {
  const Tensor& scores = n.inputs[0];
  const Tensor& params = n.inputs[1];
  const Tensor& slot = n.inputs[2];
  const Tensor& probs = n.output;
  const auto& payload = n.payload<SlotWeightsSaved>();
  const Normalizer* norm = payload.normalizer;
  const auto [H, B, T] = layout_of(scores);
  const int P = norm->params_per_head();
  const bool want_scores = scores.requires_grad(), want_slot = slot.requires_grad();
  const bool want_params = P > 0 && params.requires_grad();
  if (!want_scores && !want_slot && !want_params) return;
  const SlotLayout saved = slot_layout(H, B, T, norm->scratch_per_row(static_cast<int>(T + 1)), P);
  float* dparams_partial = payload.kept + saved.params_offset;
  const float* slot_weights = payload.kept + saved.slot_offset;
  if (want_params) std::fill_n(dparams_partial, B * H * P, 0.0f);

#pragma omp parallel for schedule(static) if (B * H * T * T >= kernels::kParallelMinElements)
  for (int64_t hb = 0; hb < H * B; ++hb) {
    const int h = static_cast<int>(hb / B);
    float* s_row = payload.kept + hb * saved.row_buffer;  // [T + 1] each, slot first
    float* p_row = s_row + (T + 1);
    float* dp_row = p_row + (T + 1);
    float* ds_row = dp_row + (T + 1);
    float* row_scratch = ds_row + (T + 1);
    for (int64_t i = 0; i < T; ++i) {
      const int64_t at = (hb * T + i) * T, visible = i + 1;
      s_row[0] = slot.data()[hb * T + i];
      p_row[0] = slot_weights[hb * T + i];
      dp_row[0] = 0.0f;  // the slot's value is 0: its weight reaches no output
      std::copy_n(scores.data() + at, visible, s_row + 1);
      std::copy_n(probs.data() + at, visible, p_row + 1);
      std::copy_n(probs.grad() + at, visible, dp_row + 1);
      std::fill_n(ds_row, visible + 1, 0.0f);
      const RowSpec spec{static_cast<int>(i), static_cast<int>(visible + 1), static_cast<int>(T), h};
      norm->backward_row(s_row, p_row, dp_row, ds_row, spec, P > 0 ? params.data() + h * P : nullptr,
                         want_params ? dparams_partial + hb * P : nullptr, row_scratch);
      if (want_slot) slot.grad()[hb * T + i] += ds_row[0];
      if (want_scores)
        for (int64_t k = 0; k < visible; ++k) scores.grad()[at + k] += ds_row[k + 1];
    }
  }
  if (want_params)
    for (int64_t hb = 0; hb < H * B; ++hb)
      for (int p = 0; p < P; ++p) params.grad()[(hb / B) * P + p] += dparams_partial[hb * P + p];
}

void check_scores(const Tensor& scores) {
  if (scores.rank() != 4 || scores.dim(2) != scores.dim(3) || !scores.is_contiguous())
    throw std::invalid_argument("attention_weights: scores must be contiguous [H, B, T, T], got " +
                                scores.shape().str());
}

void check_head_params(const Normalizer& normalizer, const Tensor& head_params, int64_t H) {
  const int P = normalizer.params_per_head();
  if (P > 0 && (!head_params.defined() || head_params.numel() != H * P))
    throw std::invalid_argument("attention_weights: normalizer '" + std::string(normalizer.name()) + "' needs [" +
                                std::to_string(H) + ", " + std::to_string(P) + "] head parameters");
}

}  // namespace

SlotAttentionWeights attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer,
                                       const Tensor& head_params, const Tensor& slot_logits) {
  if (!slot_logits.defined()) return {attention_weights(g, scores, normalizer, head_params), nullptr};
  check_scores(scores);
  const auto [H, B, T] = layout_of(scores);
  check_head_params(normalizer, head_params, H);
  if (slot_logits.numel() != H * B * T || !slot_logits.is_contiguous())
    throw std::invalid_argument("attention_weights: slot logits must be contiguous [" + std::to_string(H) + ", " +
                                std::to_string(B) + ", " + std::to_string(T) + "], got " + slot_logits.shape().str());
  const int P = normalizer.params_per_head();
  const bool track = g.needs_grad({scores, head_params, slot_logits});
  Tensor probs = g.new_tensor(scores.shape(), track);
  const SlotLayout saved = slot_layout(H, B, T, normalizer.scratch_per_row(static_cast<int>(T + 1)), P);
  float* kept = g.scratch(static_cast<size_t>(saved.total));
  float* slot_weights = kept + saved.slot_offset;

#pragma omp parallel for schedule(static) if (B * H * T * T >= kernels::kParallelMinElements)
  for (int64_t hb = 0; hb < H * B; ++hb) {
    const int h = static_cast<int>(hb / B);
    float* s_row = kept + hb * saved.row_buffer;  // [T + 1] each, slot first
    float* p_row = s_row + (T + 1);
    float* row_scratch = s_row + 4 * (T + 1);
    for (int64_t i = 0; i < T; ++i) {
      const int64_t at = (hb * T + i) * T, visible = i + 1;
      s_row[0] = slot_logits.data()[hb * T + i];
      std::copy_n(scores.data() + at, visible, s_row + 1);
      const RowSpec spec{static_cast<int>(i), static_cast<int>(visible + 1), static_cast<int>(T), h};
      normalizer.forward_row(s_row, p_row, spec, P > 0 ? head_params.data() + h * P : nullptr, row_scratch);
      slot_weights[hb * T + i] = p_row[0];
      std::copy_n(p_row + 1, visible, probs.data() + at);
      std::fill(probs.data() + at + visible, probs.data() + at + T, 0.0f);
    }
  }

  if (track) {
    Node n;
    n.backward = backward_slot_rows;
    n.op = "attention_weights_with_slot";
    n.inputs = {scores, head_params, slot_logits};
    n.output = probs;
    n.set_payload(SlotWeightsSaved{&normalizer, kept});
    g.record(n);
  }
  return {probs, slot_weights};
}

Tensor attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer, const Tensor& head_params) {
  check_scores(scores);
  const auto [H, B, T] = layout_of(scores);
  check_head_params(normalizer, head_params, H);
  const int P = normalizer.params_per_head();
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

namespace sinklab {

SlotAttentionWeights ablated_attention_weights(Graph& g, const Tensor& scores, const Normalizer& normalizer,
                                               const Tensor& head_params, const Tensor& slot_logits,
                                               const AttentionAblation& ablation, int layer) {
  if (g.needs_grad({scores, head_params, slot_logits}))
    throw std::logic_error("attention ablation " + std::string(ablation_mode_name(ablation.mode())) +
                           " is for evaluation only: it has no backward (run it under a NoGradGuard)");
  SlotAttentionWeights w = attention_weights(g, scores, normalizer, head_params, slot_logits);
  if (!ablation.applies_in_layer(layer)) return w;
  const auto [H, B, T] = layout_of(scores);
  float* probs = w.weights.data();  // [H, B, T, T], fresh and untracked: rewritten in place
  if (ablation.mode() == AblationMode::zero_bos_weight) {
    for (int64_t hb = 0; hb < H * B; ++hb)
      if (ablation.applies(layer, static_cast<int>(hb / B)))
        for (int64_t i = 0; i < T; ++i) probs[(hb * T + i) * T] = 0.0f;
    return w;
  }
  // mask_bos_key: rows i >= 1 again, on keys 1..i (after the slot, if any); row 0 is left alone.
  const bool slot = slot_logits.defined();
  const int64_t lead = slot ? 1 : 0, row_len = T + lead;
  float* slot_weights = nullptr;  // [H, B, T]: a copy, so the unablated op's array stays as it was
  if (slot) {
    slot_weights = g.scratch(static_cast<size_t>(H * B * T));
    std::copy_n(w.slot_weights, H * B * T, slot_weights);
    w.slot_weights = slot_weights;
  }
  const int P = normalizer.params_per_head();
  const int64_t per_block = 2 * row_len + normalizer.scratch_per_row(static_cast<int>(row_len));
  float* buffers = g.scratch(static_cast<size_t>(H * B * per_block));

#pragma omp parallel for schedule(static) if (B * H * T * T >= kernels::kParallelMinElements)
  for (int64_t hb = 0; hb < H * B; ++hb) {
    const int h = static_cast<int>(hb / B);
    if (!ablation.applies(layer, h)) continue;
    float* s_row = buffers + hb * per_block;  // [row_len] each: [slot,] keys 1..i
    float* p_row = s_row + row_len;
    float* row_scratch = p_row + row_len;
    const float* params = P > 0 ? head_params.data() + h * P : nullptr;
    for (int64_t i = 1; i < T; ++i) {
      const int64_t at = (hb * T + i) * T;
      if (slot) s_row[0] = slot_logits.data()[hb * T + i];
      std::copy_n(scores.data() + at + 1, i, s_row + lead);
      // Positions from query, never from the row length: divisors and log n_i stay those of row i.
      const RowSpec spec{static_cast<int>(i), static_cast<int>(i + lead), static_cast<int>(T), h};
      normalizer.forward_row(s_row, p_row, spec, params, row_scratch);
      if (slot) slot_weights[hb * T + i] = p_row[0];
      probs[at] = 0.0f;
      std::copy_n(p_row + lead, i, probs + at + 1);  // keys > i are already 0
    }
  }
  return w;
}

}  // namespace sinklab
