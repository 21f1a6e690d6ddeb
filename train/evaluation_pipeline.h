#pragma once
// The one evaluation of a model on its run's evaluation task. The trainer's evaluations, `sinklab eval`,
// `sinklab inspect --eval`, `sinklab error-vs-sink` and Python's Model.evaluate all go through it, so
// they draw the same set (task.eval_seq_len, eval_samples and eval_seed applied), evaluate it in the same
// chunks with the same observers and thread count, and get the same bits.
#include <memory>

#include "config_loading/run_config.h"
#include "core/graph.h"
#include "data/eval_set.h"
#include "data/task.h"
#include "data/task_config.h"
#include "layers/attention_ablation.h"
#include "models/model.h"
#include "models/sink_evaluation.h"
#include "models/task_objective.h"
#include "run_files/run_summary.h"
#include "stats/attention_maps.h"
#include "stats/extreme_tokens.h"

namespace sinklab {

// What one evaluation computes besides the task's metrics and every head's sink statistics.
struct EvaluationRequest {
  bool row_errors = false;                  // EvalMetrics' per-row errors (MSE tasks)
  AttentionAblation ablation;               // for this evaluation only
  AttentionMapAccumulator* maps = nullptr;  // the attention maps of the observed inputs, when set
};

class EvaluationPipeline {
 public:
  // The run's own evaluation set: evaluation_task_config(config.task).
  explicit EvaluationPipeline(const RunConfig& config);
  // Another evaluation task of the same run (`eval --seq-len`, `--samples`, `--eval-trigger`, Python's
  // samples=); make_task's errors (TaskError) propagate.
  EvaluationPipeline(const RunConfig& config, const TaskConfig& evaluation_task);

  const RunConfig& config() const { return config_; }
  const TaskConfig& task_config() const { return task_config_; }
  const Task& task() const { return *task_; }
  const EvalSet& set() const { return set_; }
  const TaskObjective& objective() const { return objective_; }

  // The task's metrics over the whole set and each head's sink statistics over the first
  // analysis.eval_attention_samples inputs, with the run's thread count. `g` is reset after each chunk.
  SinkEvaluation evaluate(Graph& g, Model& model, const EvaluationRequest& request = {}) const;
  // The extreme-token statistics of the model as it is set (ablation and hooks included).
  ExtremeTokenReport extreme_tokens(Graph& g, Model& model) const;
  // What a finished run's summary.json records from its final evaluation: `e`'s metrics and heads, and
  // the model's extreme-token statistics. `s` already holds summary_of_run(config, task()).
  void record_final_evaluation(RunSummary& s, SinkEvaluation e, Graph& g, Model& model) const;
  // summary_of_run(config, task()): what the run is, at this evaluation's length and trigger.
  RunSummary run_summary() const;

 private:
  RunConfig config_;
  TaskConfig task_config_;
  std::unique_ptr<Task> task_;
  EvalSet set_;
  TaskObjective objective_;
};

}  // namespace sinklab
