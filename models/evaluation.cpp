#include "models/evaluation.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace sinklab {

EvalMetrics evaluate_model(Graph& g, Transformer& model, const TaskObjective& objective, const EvalSet& set,
                           std::span<AttentionObserver* const> observers, const EvalOptions& options) {
  std::vector<AttentionObservers::Registration> registrations;
  for (AttentionObserver* o : observers) registrations.push_back(model.observers().observe(*o));
  NoGradGuard no_grad(g);
  const TaskShape& shape = objective.shape();
  double sq_sum = 0, max_err = 0, loss_sum = 0;
  int64_t scored = 0, correct = 0;
  const int n = set.size();
  const int with_attention = std::min(n, options.attention_samples);
  for (int begin = 0; begin < n;) {
    if (begin >= with_attention) registrations.clear();
    const int limit = begin < with_attention ? with_attention : n;
    const int count = std::min(options.chunk, limit - begin);
    const ConstBatchView v = set.view(begin, count);
    if (!registrations.empty())
      for (AttentionObserver* o : observers) o->begin_batch(v.roles, count);
    g.reset();
    const BatchScore s = objective.run(g, model, v, count);
    const double loss = s.loss.data()[0];
    if (shape.loss == TaskLoss::mse) {
      sq_sum += loss * static_cast<double>(static_cast<int64_t>(count) * shape.seq_len * shape.output_dim);
      if (!(s.max_abs_error <= max_err)) max_err = s.max_abs_error;  // unlike std::max, keeps a NaN
    } else {
      loss_sum += loss * static_cast<double>(s.scored);
      scored += s.scored;
      correct += s.correct;
    }
    begin += count;
  }
  g.reset();
  EvalMetrics m;  // what the task's loss does not define stays NaN
  if (shape.loss == TaskLoss::mse) {
    const double entries = static_cast<double>(n) * shape.seq_len * shape.output_dim;
    m.mse = sq_sum / entries;
    m.max_abs_error = max_err;
  } else {
    // A set without a scored position has no loss to report: NaN (null in JSON), never 0.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m.loss = scored == 0 ? nan : loss_sum / static_cast<double>(scored);
    m.accuracy = scored == 0 ? nan : static_cast<double>(correct) / static_cast<double>(scored);
  }
  return m;
}

}  // namespace sinklab
