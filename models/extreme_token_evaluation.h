#pragma once
// Runs the extreme-token statistics (stats/extreme_tokens.h) on a model: on the run's evaluation inputs,
// and for text_lm runs on Gu et al.'s protocol (docs/sinks-in-language-models.md): windows of T = 64
// tokens (fewer when learned positions allow fewer) from the training part, with a BOS token and without
// (packed text: position 0 is whatever token comes first).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "config_loading/run_config.h"
#include "core/graph.h"
#include "data/eval_set.h"
#include "data/task.h"
#include "layers/transformer.h"
#include "models/task_objective.h"
#include "stats/extreme_tokens.h"

namespace sinklab {

inline constexpr int kGuSeqLen = 64;
inline constexpr uint64_t kGuSeed = 0x6775;  // fixed: every run and every step reads the same windows

// The statistics of the first `samples` inputs of `set` (at least one), in chunks of at most `chunk`.
// Gradients off; the graph is reset after each chunk.
ExtremeTokenStats measure_extreme_tokens(Graph& g, Transformer& model, const TaskObjective& objective,
                                         const EvalSet& set, int samples, int chunk, double eps, bool key_bias_slot);

// The same on token windows ids [windows, T] (row-major).
ExtremeTokenStats measure_extreme_tokens(Graph& g, Transformer& model, std::span<const int32_t> ids, int64_t windows,
                                         int64_t seq_len, int chunk, double eps, bool key_bias_slot);

// `windows` windows of `seq_len` ids from train_ids at starts drawn from Rng(seed); with_bos: BOS (id 0)
// then seq_len - 1 corpus ids. Throws std::invalid_argument when train_ids is shorter than a window.
std::vector<int32_t> gu_protocol_windows(std::span<const int32_t> train_ids, int seq_len, int windows, bool with_bos,
                                         uint64_t seed);

// The length Gu's protocol uses for a model: 64, or the model's length when its learned positions
// cannot run 64.
int gu_protocol_length(const RunConfig& config, int max_seq_len);

// Everything for one run: the evaluation inputs (the first min(analysis.extreme_token_samples,
// analysis.eval_attention_samples) of them), and Gu's
// protocol (analysis.gu_windows windows with BOS and as many without) when `task` is a text_lm task.
ExtremeTokenReport measure_extreme_token_report(Graph& g, Transformer& model, const RunConfig& config, const Task& task,
                                                const TaskObjective& objective, const EvalSet& set, int max_seq_len);

}  // namespace sinklab
