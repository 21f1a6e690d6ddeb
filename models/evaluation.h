#pragma once
// Evaluation of a model on a task's fixed evaluation set, outside any training loop: the task's metrics
// over the whole set, with any attention observers (sink statistics, maps, probes) watching the first
// `attention_samples` inputs; each observer gets the roles of every chunk before it runs (begin_batch).
#include <limits>
#include <span>

#include "core/graph.h"
#include "data/eval_set.h"
#include "core/observe/attention_observer.h"
#include "layers/transformer.h"
#include "models/task_objective.h"

namespace sinklab {

// A measure the task's loss does not define is NaN (null in JSON), never 0.
struct EvalMetrics {
  static constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
  // MSE tasks: mean squared error over every target entry and the largest |pred - y|.
  double mse = kUndefined, max_abs_error = kUndefined;
  // Cross-entropy tasks: mean loss in nats over scored positions and the share predicted correctly.
  double loss = kUndefined, accuracy = kUndefined;
};

struct EvalOptions {
  int chunk = 250;              // inputs per forward pass
  int attention_samples = 0;    // the observers see inputs 0 .. attention_samples - 1
};

// Runs with gradients off; resets `g` after each chunk.
EvalMetrics evaluate_model(Graph& g, Transformer& model, const TaskObjective& objective, const EvalSet& set,
                           std::span<AttentionObserver* const> observers, const EvalOptions& options);

}  // namespace sinklab
