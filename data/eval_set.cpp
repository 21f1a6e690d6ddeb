#include "data/eval_set.h"

#include <string>

namespace sinklab {

EvalSet::EvalSet(const Task& task, int samples, uint64_t seed)
    : samples_(samples), seq_len_(task.seq_len()), input_dim_(task.input_dim()), output_dim_(task.output_dim()) {
  if (samples < 1) throw TaskError("evaluation set: needs at least 1 sample, got " + std::to_string(samples));
  const auto n = static_cast<std::size_t>(samples);
  const auto t = static_cast<std::size_t>(seq_len_);
  inputs_.resize(n * t * static_cast<std::size_t>(input_dim_));
  targets_.resize(n * t * static_cast<std::size_t>(output_dim_));
  roles_.resize(n * t);
  trigger_positions_.resize(n);
  Rng rng(seed);
  task.sample(samples, rng, Split::eval,
              BatchView{inputs_.data(), targets_.data(), roles_.data(), trigger_positions_.data()});
}

EvalSet::EvalSet(const Task& task, const TaskConfig& config) : EvalSet(task, config.eval_samples, config.eval_seed) {}

void EvalSet::check_range(int first, int count) const {
  if (first < 0 || count < 0 || first > samples_ - count) {
    throw TaskError("evaluation set: samples " + std::to_string(first) + " .. " + std::to_string(first + count - 1) +
                    " requested, but the set holds 0 .. " + std::to_string(samples_ - 1));
  }
}

ConstBatchView EvalSet::view(int first, int count) const {
  check_range(first, count);
  const auto b = static_cast<std::size_t>(first);
  const auto t = static_cast<std::size_t>(seq_len_);
  return {inputs_.data() + b * t * static_cast<std::size_t>(input_dim_),
          targets_.data() + b * t * static_cast<std::size_t>(output_dim_), roles_.data() + b * t,
          trigger_positions_.data() + b};
}

}  // namespace sinklab
