#pragma once
// The parts of a RunSummary that training and the analysis commands fill the same way: what the run is
// (config and task facts), and what an evaluation measured.
#include <vector>

#include "config_loading/run_config.h"
#include "data/task.h"
#include "models/evaluation.h"
#include "run_files/run_summary.h"

namespace sinklab {

// name, seed, normalizer, layers, heads, seq_len, eval_trigger, sink_eps, uniform baseline, threads.
RunSummary summary_of_run(const RunConfig& config, const Task& task);

// The evaluation's metrics (eval_loss / eval_accuracy only for a cross-entropy task), heads and sink rate.
void add_evaluation(RunSummary& summary, const EvalMetrics& metrics, TaskLoss loss, std::vector<HeadSinkStats> heads);

// The run-level numbers of summary.extreme_tokens (gu_sink_rate, gu_sink_rate_bos, sink_rate_slot,
// massive_ratio_max), left unset where the report has no such measurement.
void add_extreme_token_numbers(RunSummary& summary);

}  // namespace sinklab
