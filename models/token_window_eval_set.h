#pragma once
// Token windows of a text as an evaluation set, for models that no task trains (Hugging Face model
// folders, models/open_models/open_model_loader.h): the analysis `sinklab eval` runs on a trained run's
// EvalSet (sink statistics, extreme tokens, ablations, massive-activation interventions) then runs
// unchanged on a text. Each window is scored on next-token prediction (the last position has no target)
// and position 0 is marked as the sink key, so the sink statistics' BOS mass is the first token's share
// whether that token is BOS or a word (Gu et al.'s alpha_0 with and without BOS).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "data/eval_set.h"

namespace sinklab {

// How many windows of seq_len tokens a stream of `stream_tokens` ids gives: stream_tokens / seq_len
// (each window reads its own seq_len ids; with BOS the last of them is dropped for the BOS in front).
int64_t token_windows_in_stream(int64_t stream_tokens, int seq_len);

// The first `windows` windows [windows, seq_len], row-major: window w reads stream ids w*seq_len ..;
// without `bos` they are its seq_len ids (packed text), with `bos` the window is BOS followed by the
// first seq_len - 1 of them (Gu et al.'s protocol). Throws std::invalid_argument when the stream is
// shorter than that or seq_len < 2.
std::vector<int32_t> cut_token_windows(std::span<const int32_t> stream, int64_t windows, int seq_len,
                                       std::optional<int32_t> bos);

// The windows [windows, seq_len] as a next-token evaluation set over `vocab` ids (token inputs,
// cross-entropy). Throws std::invalid_argument for an id outside [0, vocab), naming window and position.
EvalSet token_window_eval_set(std::span<const int32_t> ids, int64_t windows, int seq_len, int vocab);

}  // namespace sinklab
