#pragma once
// The `task:` section as plain data: the generic keys every task has, plus the chosen task's own
// options (declared by its registration, data/task_registration.h).
#include <cstdint>
#include <string>

#include "core/options/option_spec.h"

namespace sinklab {

struct TaskConfig {
  std::string name = "trigger_conditional";
  int seq_len = 16;  // BOS included
  int eval_samples = 1000;
  int eval_seq_len = 0;  // length of the evaluation set, BOS included; 0 = seq_len (length generalization)
  uint64_t eval_seed = 1234567;
  OptionValues options;  // the task's own keys (task.dim, task.offset, ...); unset = the declared default
  bool operator==(const TaskConfig&) const = default;
};

}  // namespace sinklab
