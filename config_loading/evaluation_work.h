#pragma once
// How much attention one evaluation observes, checked before a run starts. An observed attention weight
// feeds the sink statistics, the extreme-token meter and the attention maps (0.1-0.5 us each on one
// core), so work grows as samples x layers x heads x T^2: task.eval_seq_len 20000 with 1000 inputs is
// 4e11 weights, days of evaluation in a run of 2 steps, although its memory fits.
#include "config_loading/key_locations.h"
#include "config_loading/run_config.h"

namespace sinklab {

// The most attention weights one evaluation, or one snapshot, may observe: 180x the largest shipped
// config (configs/normlimits/kjv_char.yaml, 5.4e8), some hours on one core.
inline constexpr double kMaxObservedAttentionWeights = 1e11;

// analysis.eval_attention_samples x layers x heads x (evaluation length)^2.
double evaluation_attention_weights(const RunConfig& config);
// analysis.snapshot_samples x layers x heads x (evaluation length)^2, 0 without snapshots.
double snapshot_attention_weights(const RunConfig& config);

// Throws a ConfigError naming the keys, with their values, when an evaluation or a snapshot would
// observe more than kMaxObservedAttentionWeights, placed at the first of those keys the user wrote.
void check_evaluation_work(const RunConfig& config, const KeyLocations& where);

}  // namespace sinklab
