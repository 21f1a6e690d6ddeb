#pragma once
// The probes' input: a model plus windows of token ids [W, L], each starting with BOS. A probe at a
// smaller length L' reads each window's first L' tokens. Any source of a model and ids can fill this
// (a run folder's validation windows here; other model formats later).
#include <cstdint>
#include <string>
#include <vector>

#include "probes/probe_results.h"
#include "models/model.h"

namespace sinklab::probes {

struct ProbeWindows {
  Model* model = nullptr;  // not owned; its attention observers are used during the probe
  std::string model_name;  // for probes.md
  int windows = 0, length = 0;
  std::vector<int32_t> ids;  // [windows, length]
};

// The model's rows as the bounds see them, from its normalizer's registration (NormalizerRowFacts): a
// softmax of the scaled logits (and no key-bias slot), and its temperature option.
RowKind row_kind_of(const Model& model);

// The first `windows` windows of the run's evaluation set (its task, Split::eval, task.eval_seed), cut
// to `length` tokens. Throws std::invalid_argument for a model that does not read tokens or a length
// beyond the task's windows.
ProbeWindows validation_windows(Model& model, const std::string& model_name, int windows, int length);

}  // namespace sinklab::probes
