#pragma once
// A fixed evaluation set: `samples` sequences drawn once, from Rng(seed) with Split::eval, and kept.
// Because a task's samples are drawn one after another from one generator, the set is the same whether
// it is later read whole or in sub-ranges.
#include <cstdint>
#include <vector>

#include "data/task.h"

namespace sinklab {

class EvalSet {
 public:
  EvalSet(const Task& task, int samples, uint64_t seed);
  // samples = config.eval_samples, seed = config.eval_seed.
  EvalSet(const Task& task, const TaskConfig& config);

  int size() const { return samples_; }
  int seq_len() const { return seq_len_; }
  int input_dim() const { return input_dim_; }
  int output_dim() const { return output_dim_; }

  // Samples first .. first + count - 1; throws TaskError when the range is outside 0 .. size().
  ConstBatchView view(int first, int count) const;
  ConstBatchView all() const { return view(0, samples_); }

 private:
  void check_range(int first, int count) const;

  int samples_;
  int seq_len_;
  int input_dim_;
  int output_dim_;
  std::vector<float> inputs_;
  std::vector<float> targets_;
  std::vector<TokenRole> roles_;
  std::vector<int32_t> trigger_positions_;
};

}  // namespace sinklab
