#pragma once
// What a task plug-in registers, in one place next to its code: name, one doc line, its options
// (config keys under `task.`, next to the generic ones: name, seq_len, eval_samples, eval_seed) and its
// factory. data/task_registry.cpp holds the one list; the config schema and docs/config.md are generated
// from the options (config_loading/plugin_fields.cpp).
#include <memory>
#include <string>
#include <vector>

#include "core/options/option_spec.h"
#include "data/task.h"

namespace sinklab {

// What a factory gets: the generic task keys and the task's resolved options.
struct TaskSettings {
  int seq_len;
  const PluginOptions& options;
  bool residual_model;  // some targets depend on it (the trigger task's target: auto)
};

struct TaskRegistration {
  std::string name;
  std::string doc;
  std::vector<OptionSpec> options;
  // Throws TaskError naming the keys of an inconsistent combination.
  std::unique_ptr<Task> (*make)(const TaskSettings& settings) = nullptr;
};

}  // namespace sinklab
