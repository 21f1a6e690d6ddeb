#include "models/task_objective.h"

#include <cmath>

#include "core/ops/losses.h"

namespace sinklab {
namespace {

// Arg-max predictions against scored targets. logits: [rows, classes] contiguous.
void count_correct(const float* logits, const int32_t* targets, int64_t rows, int64_t classes, BatchScore& score) {
  for (int64_t r = 0; r < rows; ++r) {
    if (targets[r] < 0) continue;
    const float* row = logits + r * classes;
    int64_t best = 0;
    for (int64_t k = 1; k < classes; ++k)
      if (row[k] > row[best]) best = k;
    ++score.scored;
    score.correct += best == targets[r];
  }
}

}  // namespace

double BatchScore::error() const {
  if (scored == 0) return max_abs_error;
  return static_cast<double>(scored - correct) / static_cast<double>(scored);
}

BatchScore TaskObjective::run(Graph& g, const Transformer& model, const ConstBatchView& batch, int64_t samples) const {
  const int64_t T = shape_.seq_len;
  Tensor out;
  if (shape_.input == TaskInput::tokens) {
    out = model.forward_tokens(g, batch.input_ids, samples, T);
  } else {
    // Inputs without gradients are never written: the const_cast only adapts to Tensor's float*.
    const Tensor x(const_cast<float*>(batch.inputs), nullptr, Shape{samples, T, shape_.input_dim});
    out = model.forward(g, x);
  }
  BatchScore score;
  score.output = out;
  if (shape_.loss == TaskLoss::mse) {
    const Tensor y(const_cast<float*>(batch.targets), nullptr, Shape{samples, T, shape_.output_dim});
    score.loss = mse_loss(g, out, y);
    score.max_abs_error = max_abs_error(out, y);
    return score;
  }
  const Tensor logits = out.reshape(Shape{samples * T, shape_.output_dim});
  score.loss = cross_entropy(g, logits, batch.target_ids);
  count_correct(logits.data(), batch.target_ids, samples * T, shape_.output_dim, score);
  score.max_abs_error = std::nan("");  // not a measure of a token task
  return score;
}

}  // namespace sinklab
