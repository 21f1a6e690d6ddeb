#pragma once
// Streaming evaluation of a language model (`sinklab eval RUN --stream`): next-token loss on a held-out
// stream much longer than the training windows, with the model reading a cache of W tokens, the first
// K tokens of the stream plus the most recent W - K, positions re-assigned 0 .. W-1 within the cache
// (StreamingLLM's cache). Computed by recomputation: one window per scored position, many windows per
// forward pass, no KV cache.
//
// The stream s_0 .. s_S: with BOS, s_0 = BOS and s_1 .. s_N are the first N tokens of the validation
// part (S = N); without BOS, s_0 .. s_{N-1} are those tokens (S = N - 1). Position t (0 <= t < S) is
// scored on predicting s_{t+1}, from the window
//   t <  W:  s_0 .. s_t                               (the stream so far, as dense attention sees it)
//   t >= W:  s_0 .. s_{K-1}, s_{t-W+K+1} .. s_t       (K kept tokens, then the W - K most recent)
// at positions 0 .. length - 1. The dense baseline is the run's training windows laid end to end: with
// C = task.seq_len - 1 (training scores positions 0 .. seq_len - 2; the last one has no target), window j
// predicts s_{jC+1} .. s_{jC+C} from BOS (without BOS: s_{jC}) and the tokens of the window before them.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/graph.h"
#include "data/task.h"
#include "models/model.h"

namespace sinklab {

// One cache setting: W tokens read, the first K of them kept from the start of the stream.
struct StreamWindow {
  int window = 0;      // W
  int keep_first = 0;  // K
};

// A setting the evaluation cannot run; setting() names it ("window", "keep_first" or "tokens") so a
// command line can name its flag.
class StreamSettingError : public std::invalid_argument {
 public:
  StreamSettingError(std::string setting, const std::string& message)
      : std::invalid_argument(message), setting_(std::move(setting)) {}
  const std::string& setting() const { return setting_; }

 private:
  std::string setting_;
};

// The held-out stream of a text_lm task: BOS (when `bos`), then the first `tokens` ids of its
// validation part. Throws std::invalid_argument for another task, StreamSettingError("tokens") when
// `tokens` leaves nothing to score (fewer than 2 stream tokens) or exceeds the validation part.
std::vector<int32_t> held_out_stream(const Task& task, int64_t tokens, bool bos);
// The default N: 4 x the training seq_len, at most the validation part (std::invalid_argument for a task
// other than text_lm).
int64_t default_stream_tokens(const Task& task, int seq_len);

class StreamingEvaluator {
 public:
  // `stream` as held_out_stream returns it (kept by reference: it must outlive the evaluator); `bos`:
  // whether s_0 is BOS. The model's config gives the trained context (task.seq_len - 1) and its
  // positions. Throws std::invalid_argument for a model that does not read tokens.
  // `bos_id`: the id the dense baseline puts in front of each of its windows when `bos` (a text_lm
  // run's is 0; an open model's is its own).
  StreamingEvaluator(const Model& model, std::span<const int32_t> stream, bool bos, int32_t bos_id = 0);

  // The loss in nats of each scored position t = 0 .. S-1 (one entry per position). Throws
  // StreamSettingError for K < 0, K >= W, W longer than the trained context with learned positions, or
  // W longer than the model's max_seq_len (the caller builds the model at that length).
  std::vector<double> windowed_losses(StreamWindow setting);
  // The checks of windowed_losses alone (a caller can refuse a list of settings before any work).
  void check_window(StreamWindow setting) const;
  // The dense baseline's losses, one per position t = 0 .. S-1.
  std::vector<double> dense_losses();

  // StreamingLLM's own method, with a KV cache (layers/kv_cache.h): the first min(W, S) positions in one
  // pass, then one token at a time, evicting cache entry K (the oldest recent token) once the cache
  // holds W; keys are turned by their index in the cache. Positions t < W get windowed_losses' numbers
  // (to rounding). Later ones differ in a model of more than one layer: here a token's keys and values
  // were computed once, from the cache as it was when the token was read, while recomputation rebuilds
  // them from the current window (StreamingLLM's "sliding window with re-computation" baseline). The
  // work per token is one token's pass instead of W tokens'. Throws StreamSettingError("method") for a
  // model whose positions are learned or sinusoidal (a cache cannot re-assign them) or that cannot
  // decode from a cache (Transformer::kv_cache_refusal), and as windowed_losses for the setting.
  std::vector<double> cached_losses(StreamWindow setting);
  // Why cached_losses cannot run on this model, "" when it can.
  std::string kv_cache_refusal() const;

  // C: the longest context training scored a prediction from (task.seq_len - 1).
  int trained_context() const { return trained_context_; }
  int64_t scored_positions() const { return static_cast<int64_t>(stream_.size()) - 1; }

 private:
  // One forward pass over `windows` windows of `length` ids; the logits [windows, length, classes] stay
  // valid until the next pass.
  const float* forward(const int32_t* ids, int64_t windows, int64_t length);
  // Positions 0 .. prefix - 1 in one causal pass over s_0 .. s_{prefix-1}.
  void score_prefix(int64_t prefix, std::vector<double>& losses);

  const Model& model_;
  std::span<const int32_t> stream_;
  bool bos_;
  int32_t bos_id_;
  int trained_context_;
  int classes_;
  Graph graph_;
  std::vector<int32_t> ids_;  // [windows, length]: the ids of one forward pass
};

// The mean of `losses` over positions [from, losses.size()); NaN when that range is empty.
double mean_loss(std::span<const double> losses, std::size_t from = 0);

}  // namespace sinklab
