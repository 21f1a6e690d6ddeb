#include "models/evaluation_summary.h"

#include <cmath>

#include <utility>

#include "stats/sink_statistics.h"

namespace sinklab {

RunSummary summary_of_run(const RunConfig& config, const Task& task) {
  RunSummary s;
  s.name = config.name;
  s.seed = config.seed;
  s.normalizer = config.model.attention.normalizer.name;
  s.layers = config.model.layers;
  s.heads_per_layer = config.model.heads;
  s.seq_len = task.seq_len();
  s.eval_trigger = task.fixed_eval_row();
  s.sink_eps = config.analysis.sink_eps;
  s.uniform_baseline = uniform_causal_baseline(task.seq_len());
  s.threads = config.threads;
  s.task_baselines = task.baselines();
  return s;
}

void add_evaluation(RunSummary& s, const EvalMetrics& m, TaskLoss loss, std::vector<HeadSinkStats> heads) {
  s.eval_mse = m.mse;
  s.eval_max_abs_error = m.max_abs_error;
  if (loss == TaskLoss::cross_entropy) {
    s.eval_loss = m.loss;
    s.eval_accuracy = m.accuracy;
    s.eval_active_loss = m.active_loss;
    s.eval_active_accuracy = m.active_accuracy;
    s.eval_no_op_loss = m.no_op_loss;
    s.eval_no_op_accuracy = m.no_op_accuracy;
  }
  s.heads = std::move(heads);
  s.sink_rate = sink_rate(s.heads);
  if (!s.heads.empty()) {  // a head whose score is NaN (non-finite rows) makes the mean NaN: null, not a made-up number
    double sum = 0;
    for (const HeadSinkStats& h : s.heads) sum += h.sink_score;
    s.sink_score_mean = sum / static_cast<double>(s.heads.size());
    double excess = 0;  // the graded headline (docs/analysis.md, "Sink heads")
    for (const HeadSinkStats& h : s.heads) excess += h.sink_excess;
    s.sink_excess_mean = excess / static_cast<double>(s.heads.size());
  }
}

void add_extreme_token_numbers(RunSummary& summary) {
  if (!summary.extreme_tokens) return;
  const ExtremeTokenReport& r = *summary.extreme_tokens;
  if (r.gu_no_bos) summary.gu_sink_rate = r.gu_no_bos->sink_rate[0];
  if (r.gu_bos) summary.gu_sink_rate_bos = r.gu_bos->sink_rate[0];
  if (std::isfinite(r.eval.sink_rate_slot)) summary.sink_rate_slot = r.eval.sink_rate_slot;
  // Over the layers where the ratio is defined; NaN (null) when it is in none (a median |h| of 0).
  for (const LayerExtremes& l : r.eval.layers)
    if (!summary.massive_ratio_max || std::isnan(*summary.massive_ratio_max) ||
        l.massive_ratio > *summary.massive_ratio_max)
      summary.massive_ratio_max = l.massive_ratio;
}

}  // namespace sinklab
