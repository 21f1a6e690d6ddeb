#include "models/sink_evaluation.h"

#include "stats/sink_observer.h"
#include "stats/sink_statistics.h"

namespace sinklab {

SinkEvaluation evaluate_with_sink_statistics(Model& model, const EvalSet& set, const EvalOptions& options,
                                             AttentionMapAccumulator* maps) {
  Graph graph;
  return evaluate_with_sink_statistics(graph, model, set, options, maps);
}

SinkEvaluation evaluate_with_sink_statistics(Graph& graph, Model& model, const EvalSet& set, const EvalOptions& options,
                                             AttentionMapAccumulator* maps) {
  const RunConfig& c = model.config();
  SinkStatisticsAccumulator stats(c.model.layers, c.model.heads, set.seq_len(), c.analysis.sink_eps);
  SinkObserver observer(&stats, maps);
  AttentionObserver* const observers[] = {&observer};
  const TaskObjective objective(set.shape());
  SinkEvaluation e;
  e.metrics = evaluate_model(graph, model.transformer(), objective, set, observers, options);
  e.heads = stats.finish();
  return e;
}

}  // namespace sinklab
