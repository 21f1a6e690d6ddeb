#pragma once
// The evaluation every analysis ends with: a model's task metrics on an evaluation set plus the sink
// statistics of each head (and, when asked, attention maps). A run's own evaluation set goes through
// train/evaluation_pipeline.h, which calls this; other sets (a model folder's text windows) call it directly.
#include <vector>

#include "data/eval_set.h"
#include "models/evaluation.h"
#include "models/model.h"
#include "stats/attention_maps.h"
#include "stats/head_statistics.h"

namespace sinklab {

struct SinkEvaluation {
  EvalMetrics metrics;
  std::vector<HeadSinkStats> heads;  // layer-major
};

// options.attention_samples inputs feed the statistics (and `maps` when not null); the model's
// config gives layers, heads and sink_eps.
SinkEvaluation evaluate_with_sink_statistics(Model& model, const EvalSet& set, const EvalOptions& options,
                                             AttentionMapAccumulator* maps = nullptr);
// The same in the caller's graph (the trainer reuses its own); `g` is reset after each chunk.
SinkEvaluation evaluate_with_sink_statistics(Graph& g, Model& model, const EvalSet& set, const EvalOptions& options,
                                             AttentionMapAccumulator* maps = nullptr);

}  // namespace sinklab
