#pragma once
// A fixed evaluation set: `samples` sequences drawn once, from Rng(seed) with Split::eval, and kept.
// Because a task's samples are drawn one after another from one generator, the set is the same whether
// it is later read whole or in sub-ranges.
#include <algorithm>
#include <cstdint>

#include "data/task.h"
#include "data/task_config.h"

namespace sinklab {

// Evaluation inputs per forward pass: `requested` (250 by default), fewer for long sequences so that a
// pass's [H, chunk, T, T] attention tensors stay as large as 250 inputs of T = 16 make them (T = 64: 15,
// T = 1024: 1) instead of growing with T^2. The evaluation's own bits follow the chunk, so every
// evaluation of a set (training, eval, inspect) goes through this one rule.
inline int evaluation_chunk(int seq_len, int requested = 250) {
  constexpr int64_t kAttentionEntries = 250 * 16 * 16;
  const int64_t t2 = static_cast<int64_t>(seq_len) * seq_len;
  const int64_t fitting = t2 > 0 ? kAttentionEntries / t2 : requested;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(requested, fitting)));
}

class EvalSet {
 public:
  EvalSet(const Task& task, int samples, uint64_t seed);
  // samples = config.eval_samples, seed = config.eval_seed.
  EvalSet(const Task& task, const TaskConfig& config);
  // Inputs that no task samples (token windows of a text, models/token_window_eval_set.h): the
  // buffers as the caller filled them, kept. Throws TaskError when they hold no sample.
  explicit EvalSet(BatchBuffers filled);

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
