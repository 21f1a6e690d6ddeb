#pragma once
// A fixed evaluation set: `samples` sequences drawn once, from Rng(seed) with Split::eval, and kept.
// Because a task's samples are drawn one after another from one generator, the set is the same whether
// it is later read whole or in sub-ranges.
#include <cstdint>

#include "data/task.h"
#include "data/task_config.h"

namespace sinklab {

class EvalSet {
 public:
  EvalSet(const Task& task, int samples, uint64_t seed);
  // samples = config.eval_samples, seed = config.eval_seed.
  EvalSet(const Task& task, const TaskConfig& config);

  int size() const { return buffers_.batch; }
  const TaskShape& shape() const { return buffers_.shape; }
  int seq_len() const { return shape().seq_len; }
  int input_dim() const { return shape().input_dim; }
  int output_dim() const { return shape().output_dim; }

  // Samples first .. first + count - 1; throws TaskError when the range is outside 0 .. size().
  ConstBatchView view(int first, int count) const;
  ConstBatchView all() const { return view(0, size()); }

 private:
  BatchBuffers buffers_;
};

}  // namespace sinklab
