#include "data/eval_set.h"

#include <string>
#include <utility>

namespace sinklab {
namespace {

int checked_samples(int samples) {
  if (samples < 1) throw TaskError("evaluation set: needs at least 1 sample, got " + std::to_string(samples));
  return samples;
}

}  // namespace

EvalSet::EvalSet(const Task& task, int samples, uint64_t seed) : buffers_(task.shape(), checked_samples(samples)) {
  Rng rng(seed);
  task.sample(samples, rng, Split::eval, buffers_.view());
}

EvalSet::EvalSet(const Task& task, const TaskConfig& config) : EvalSet(task, config.eval_samples, config.eval_seed) {}

EvalSet::EvalSet(BatchBuffers filled) : buffers_(std::move(filled)) { checked_samples(buffers_.batch); }

ConstBatchView EvalSet::view(int first, int count) const {
  if (first < 0 || count < 0 || first > size() - count) {
    throw TaskError("evaluation set: samples " + std::to_string(first) + " .. " + std::to_string(first + count - 1) +
                    " requested, but the set holds 0 .. " + std::to_string(size() - 1));
  }
  return buffers_.view(first, count);
}

}  // namespace sinklab
