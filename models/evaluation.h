#pragma once
// Evaluation of a model on a task's fixed evaluation set, outside any training loop: the task's metrics
// over the whole set, with any attention observers (sink statistics, maps, probes) watching the first
// `attention_samples` inputs; each observer gets the roles of every chunk before it runs (begin_batch).
#include <limits>
#include <span>
#include <vector>

#include "core/graph.h"
#include "data/eval_set.h"
#include "core/observe/attention_observer.h"
#include "layers/attention_ablation.h"
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
  // ... the same over the scored rows the task flags as active rows / no-op rows (core/observe/position_roles.h;
  // e.g. bigram_backcopy's trigger rows / other rows, induction's second / first copy); NaN when no
  // scored row has the flag.
  double active_loss = kUndefined, active_accuracy = kUndefined;
  double no_op_loss = kUndefined, no_op_accuracy = kUndefined;
  // MSE tasks with EvalOptions::row_errors: max |pred - y| per position i ([T], over samples and output
  // entries), and over the rows the task flags as no-op rows / active rows (core/observe/position_roles.h;
  // the trigger task's non-trigger rows 1..T-1 except j, and its trigger row); NaN when no row has the flag.
  std::vector<double> row_max_abs_error;
  double no_op_max_abs_error = kUndefined, active_max_abs_error = kUndefined;
};

struct EvalOptions {
  int chunk = 250;              // inputs per forward pass at most (fewer for long rows: evaluation_chunk)
  int attention_samples = 0;    // the observers see inputs 0 .. attention_samples - 1
  bool row_errors = false;      // fill EvalMetrics' per-row errors (MSE tasks)
  AttentionAblation ablation;   // set on the model for this evaluation only (layers/attention_ablation.h)
};

// Runs with gradients off; resets `g` after each chunk. The model's own ablation is restored afterwards.
EvalMetrics evaluate_model(Graph& g, Transformer& model, const TaskObjective& objective, const EvalSet& set,
                           std::span<AttentionObserver* const> observers, const EvalOptions& options);

}  // namespace sinklab
