#pragma once
// Extreme-token statistics of language-model sink studies (docs/sinks-in-language-models.md, "Metrics"),
// measured on one evaluation pass: per head Gu et al.'s alpha_k (the mean weight a query i >= k gives key
// k) for the first kFirstKeys keys, the key-bias slot's share (Sink*), Guo et al.'s value-state drain and
// Gu et al.'s key alignment; per layer of the residual stream Sun et al.'s massive activations and Guo et
// al.'s residual-state peak; and the shares of heads above eps (Sink_k^eps).
//
// Non-finite inputs (NaN weights, a diverged model) make every number they enter NaN (null in JSON), as
// in the head statistics (stats/sink_statistics.h), and a share of heads NaN when one head's alpha is.
//
// ExtremeTokenMeter reads attention through the observer interface (weights, q, k, v, the virtual mass)
// and the residual stream through activation hooks (blocks.{l}.resid_post). It allocates on its first
// pass and is meant for evaluation passes only: training steps never see it.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "core/observe/activation_hooks.h"
#include "core/observe/attention_observer.h"

namespace sinklab {

inline constexpr int kFirstKeys = 4;  // alpha_0 .. alpha_3: Gu's Sink_1 .. Sink_4 (1-based there)
inline constexpr int kTopActivations = 3;

struct HeadExtremes {
  int layer = 0, head = 0;
  // alpha_k = mean over queries i >= k of A[i, k] / sum_j A[i, j], per window, then the mean over
  // windows: Gu's alpha_k as a share of the row, the same for rows on the simplex (softmax) and for
  // unnormalized rows a share, so a head that weighs every key 0.5 (sigmoid) is no sink.
  std::array<double, kFirstKeys> alpha{};
  // Mean weight of the key-bias slot (layers/key_bias_token.h) over all rows; NaN without a slot.
  double alpha_slot = std::numeric_limits<double>::quiet_NaN();
  // ||v_0|| / mean_{i > 0} ||v_i|| (Guo's value-state drain: a sink key whose value is small).
  double value_drain = 0.0;
  // ||k_0|| / mean_{j > 0} ||k_j||, and the mean cosine of a query i >= 1 with k_0 and with its other
  // visible keys k_j, 1 <= j <= i (Gu: cosine, not the norm, drives the sink).
  double key_norm_ratio = 0.0, key_cos_first = 0.0, key_cos_others = 0.0;
};

struct TopActivation {
  int position = 0, channel = 0;
  double mean_abs = 0.0;  // mean over windows of |h[position, channel]|
  double ratio = 0.0;     // mean_abs / the layer's median |h| (NaN when that median is 0: undefined)
};

struct LayerExtremes {
  int layer = 0;
  // Over every (window, position, channel) entry of the block's output h (blocks.{l}.resid_post):
  double median_abs = 0.0, max_abs = 0.0;
  // max_abs / median_abs (Sun et al.); NaN (null in JSON) when median_abs is 0, as in a relu model whose
  // rows give most outputs exactly 0: the ratio is undefined, not 0.
  double massive_ratio = 0.0;
  // Where max_abs is; where the first non-finite |h| is when there is one (max_abs, median_abs and the
  // ratios are NaN then).
  int max_position = 0, max_channel = 0;
  // The kTopActivations (position, channel) pairs with the largest mean |h| over windows.
  std::vector<TopActivation> top;
  // ||h_0|| / median_i ||h_i|| per window, the mean over the windows where that median is not 0 (Guo's
  // residual-state peak); NaN when it is 0 in every window.
  double residual_peak = 0.0;
};

struct ExtremeTokenStats {
  int seq_len = 0, windows = 0;
  double eps = 0.3;
  std::vector<HeadExtremes> heads;    // layer-major
  std::vector<LayerExtremes> layers;  // empty when the model's blocks have no residual stream hooks
  // Share of heads with alpha_k > eps (Gu's Sink_{k+1}^eps), and with alpha_slot > eps (Sink*, NaN
  // without a key-bias slot).
  std::array<double, kFirstKeys> sink_rate{};
  double sink_rate_slot = std::numeric_limits<double>::quiet_NaN();
  // H_T / T: alpha_0 of uniform causal attention.
  double uniform_baseline = 0.0;
};

// What a run records (summary.json, metrics.jsonl's evaluation lines, models/extreme_token_evaluation.h).
struct ExtremeTokenReport {
  ExtremeTokenStats eval;                              // the run's first evaluation inputs
  std::optional<ExtremeTokenStats> gu_bos, gu_no_bos;  // text_lm runs only: Gu's protocol
};

class ExtremeTokenMeter final : public AttentionObserver, public ActivationHooks {
 public:
  // key_bias_slot: the model has a key-bias slot whose weight is each row's virtual mass.
  ExtremeTokenMeter(int layers, int heads, double eps, bool key_bias_slot);

  void on_attention(const AttentionView& view) override;
  bool wants_qkv() const override { return true; }
  void on_activation(std::string_view name, const Tensor& value) override;

  // The statistics of every window seen so far. Throws std::logic_error when nothing was seen.
  ExtremeTokenStats finish() const;

 private:
  struct HeadSums {
    std::array<double, kFirstKeys> alpha{};
    double slot = 0, value_drain = 0, key_norm_ratio = 0, key_cos_first = 0, key_cos_others = 0;
  };
  struct LayerSums {
    std::vector<float> abs_values;  // every |h| seen, for the exact median
    std::vector<double> mean_abs;   // [T, C]: sum over windows of |h|
    double max_abs = -1.0, residual_peak = 0.0;
    int max_position = 0, max_channel = 0, windows = 0, channels = 0;
    int peak_windows = 0;  // windows whose median norm is not 0 (residual_peak sums over these)
    bool non_finite = false;  // an |h| was NaN or infinite: max_position / max_channel are where first
  };
  void add_head_window(const AttentionView& view, int64_t b, int64_t h);

  int layers_, heads_;
  double eps_;
  bool key_bias_slot_;
  int seq_len_ = 0;
  int64_t windows_ = 0;  // windows whose layer 0 attention was seen
  std::vector<HeadSums> head_sums_;
  std::vector<int64_t> head_windows_;
  std::vector<LayerSums> layer_sums_;
  std::vector<double> scratch_key_norms_, scratch_row_mass_;  // [T], reused across blocks
};

}  // namespace sinklab
