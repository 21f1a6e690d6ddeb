#include "models/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/observe/position_roles.h"
#include "models/role_scores.h"

namespace sinklab {
namespace {

// Installs an ablation on the model for one evaluation and puts the previous one back.
class ScopedAblation {
 public:
  ScopedAblation(Transformer& model, const AttentionAblation& ablation) : model_(model), previous_(model.ablation()) {
    model.set_ablation(ablation);
  }
  ~ScopedAblation() { model_.set_ablation(previous_); }
  ScopedAblation(const ScopedAblation&) = delete;
  ScopedAblation& operator=(const ScopedAblation&) = delete;

 private:
  Transformer& model_;
  AttentionAblation previous_;
};

// max that keeps a NaN once seen (unlike std::max); `into` starts at -inf.
void keep_max(double& into, double v) {
  if (std::isnan(into)) return;
  if (std::isnan(v) || v > into) into = v;
}

// Folds max |pred - y| per position of one chunk into the running maxima ([T], no-op rows, active
// rows; -inf = no row yet). pred, y: [samples, T, width]; roles: [samples, T].
void add_row_errors(const float* pred, const float* y, const uint8_t* roles, int64_t samples, int64_t T, int64_t width,
                    std::vector<double>& row_max, double& no_op_max, double& active_max) {
  for (int64_t s = 0; s < samples; ++s)
    for (int64_t i = 0; i < T; ++i) {
      const int64_t at = (s * T + i) * width;
      double err = 0.0;
      for (int64_t c = 0; c < width; ++c) keep_max(err, std::fabs(static_cast<double>(pred[at + c]) - y[at + c]));
      keep_max(row_max[static_cast<size_t>(i)], err);
      const uint8_t role = roles[s * T + i];
      if (role & position_role::kNoOpRow) keep_max(no_op_max, err);
      if (role & position_role::kActiveRow) keep_max(active_max, err);
    }
}

// -inf (no row had the flag) -> NaN.
double defined_or_nan(double max) { return std::isinf(max) ? EvalMetrics::kUndefined : max; }

}  // namespace

EvalMetrics evaluate_model(Graph& g, Transformer& model, const TaskObjective& objective, const EvalSet& set,
                           std::span<AttentionObserver* const> observers, const EvalOptions& options) {
  std::vector<AttentionObservers::Registration> registrations;
  for (AttentionObserver* o : observers) registrations.push_back(model.observers().observe(*o));
  NoGradGuard no_grad(g);
  const ScopedAblation ablation(model, options.ablation);
  const TaskShape& shape = objective.shape();
  const bool row_errors = options.row_errors && shape.loss == TaskLoss::mse;
  const double none_yet = -std::numeric_limits<double>::infinity();
  std::vector<double> row_max(row_errors ? static_cast<size_t>(shape.seq_len) : 0, none_yet);
  double no_op_max = none_yet, active_max = none_yet;
  double sq_sum = 0, max_err = 0, loss_sum = 0;
  int64_t scored = 0, correct = 0;
  RoleScores roles;
  const int n = set.size();
  const int chunk = evaluation_chunk(shape.seq_len, options.chunk);
  const int with_attention = std::min(n, options.attention_samples);
  for (int begin = 0; begin < n;) {
    if (begin >= with_attention) registrations.clear();
    const int limit = begin < with_attention ? with_attention : n;
    const int count = std::min(chunk, limit - begin);
    const ConstBatchView v = set.view(begin, count);
    if (!registrations.empty())
      for (AttentionObserver* o : observers) o->begin_batch(v.roles, count);
    g.reset();
    const BatchScore s = objective.run(g, model, v, count);
    const double loss = s.loss.data()[0];
    if (shape.loss == TaskLoss::mse) {
      sq_sum += loss * static_cast<double>(static_cast<int64_t>(count) * shape.seq_len * shape.output_dim);
      if (!(s.max_abs_error <= max_err)) max_err = s.max_abs_error;  // unlike std::max, keeps a NaN
      if (row_errors && !s.output.is_contiguous())
        throw std::logic_error("evaluate_model: the model output is not contiguous");
      if (row_errors)
        add_row_errors(s.output.data(), v.targets, v.roles, count, shape.seq_len, shape.output_dim, row_max, no_op_max,
                       active_max);
    } else {
      loss_sum += loss * static_cast<double>(s.scored);
      if (!s.output.is_contiguous()) throw std::logic_error("evaluate_model: the model output is not contiguous");
      roles.add(s.output.data(), v.target_ids, v.roles, static_cast<int64_t>(count) * shape.seq_len, shape.output_dim);
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
    if (row_errors) {
      for (double& r : row_max) r = defined_or_nan(r);
      m.row_max_abs_error = std::move(row_max);
      m.no_op_max_abs_error = defined_or_nan(no_op_max);
      m.active_max_abs_error = defined_or_nan(active_max);
    }
  } else {
    // A set without a scored position has no loss to report: NaN (null in JSON), never 0.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m.loss = scored == 0 ? nan : loss_sum / static_cast<double>(scored);
    m.accuracy = scored == 0 ? nan : static_cast<double>(correct) / static_cast<double>(scored);
    m.active_loss = roles.active.loss();
    m.active_accuracy = roles.active.accuracy();
    m.no_op_loss = roles.no_op.loss();
    m.no_op_accuracy = roles.no_op.accuracy();
  }
  return m;
}

}  // namespace sinklab
