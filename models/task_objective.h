#pragma once
// Runs the model on a batch the way the task's shape says (vectors or token ids in; MSE or next-token
// cross-entropy out) and scores it: the loss to differentiate, and the task's own measures of the batch
// (max |pred - y| for MSE tasks; scored and correctly predicted tokens for cross-entropy tasks).
#include <cstdint>

#include "core/graph.h"
#include "data/task.h"
#include "layers/transformer.h"

namespace sinklab {

struct BatchScore {
  Tensor loss;                 // [1]
  Tensor output;               // the model's output [samples, T, output_dim] (valid until g is reset)
  double max_abs_error = 0.0;  // mse tasks
  int64_t scored = 0;          // cross-entropy tasks: positions with a target
  int64_t correct = 0;         // ... whose arg-max prediction is the target
  // The error a stop rule compares (train.stop_max_abs_error): max |pred - y| for MSE tasks, the share
  // of scored tokens predicted wrongly for cross-entropy tasks.
  double error() const;
};

class TaskObjective {
 public:
  explicit TaskObjective(const TaskShape& shape) : shape_(shape) {}

  // `samples` sequences of `batch` (its buffers are only read). Records the forward pass and the loss
  // on `g` (with gradients unless g's grad mode is off).
  BatchScore run(Graph& g, const Transformer& model, const ConstBatchView& batch, int64_t samples) const;

  const TaskShape& shape() const { return shape_; }

 private:
  TaskShape shape_;
};

}  // namespace sinklab
