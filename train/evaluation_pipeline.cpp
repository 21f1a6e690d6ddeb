#include "train/evaluation_pipeline.h"

#include <utility>

#include "core/thread_count.h"
#include "data/task_registry.h"
#include "models/evaluation_summary.h"
#include "models/extreme_token_evaluation.h"

namespace sinklab {

EvaluationPipeline::EvaluationPipeline(const RunConfig& config)
    : EvaluationPipeline(config, evaluation_task_config(config.task)) {}

EvaluationPipeline::EvaluationPipeline(const RunConfig& config, const TaskConfig& evaluation_task)
    : config_(config),
      task_config_(evaluation_task),
      task_(make_task(task_config_, config.model.residual)),
      set_(*task_, task_config_),
      objective_(task_->shape()) {}

SinkEvaluation EvaluationPipeline::evaluate(Graph& g, Model& model, const EvaluationRequest& request) const {
  set_thread_count(config_.threads);  // results are bit-identical for a given thread count: the run's
  EvalOptions options;
  options.attention_samples = config_.analysis.eval_attention_samples;
  options.row_errors = request.row_errors;
  options.ablation = request.ablation;
  return evaluate_with_sink_statistics(g, model, set_, options, request.maps);
}

ExtremeTokenReport EvaluationPipeline::extreme_tokens(Graph& g, Model& model) const {
  set_thread_count(config_.threads);
  return measure_extreme_token_report(g, model.transformer(), config_, *task_, objective_, set_,
                                      model.shape().max_seq_len);
}

void EvaluationPipeline::record_final_evaluation(RunSummary& s, SinkEvaluation e, Graph& g, Model& model) const {
  add_evaluation(s, e.metrics, task_->shape().loss, std::move(e.heads));
  s.extreme_tokens = extreme_tokens(g, model);
  add_extreme_token_numbers(s);
}

RunSummary EvaluationPipeline::run_summary() const { return summary_of_run(config_, *task_); }

}  // namespace sinklab
