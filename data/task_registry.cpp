#include "data/task_registry.h"

#include "data/bigram_backcopy_task.h"
#include "data/copy_task.h"
#include "data/induction_task.h"
#include "data/trigger_conditional_task.h"

namespace sinklab {

const std::vector<TaskRegistration>& task_registrations() {
  // One line per task plug-in.
  static const std::vector<TaskRegistration> tasks{
      trigger_conditional_task_registration(),
      copy_task_registration(),
      bigram_backcopy_task_registration(),
      induction_task_registration(),
  };
  return tasks;
}

const TaskRegistration* find_task(std::string_view name) {
  for (const auto& r : task_registrations())
    if (r.name == name) return &r;
  return nullptr;
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const auto& r : task_registrations()) names.push_back(r.name);
  return names;
}

std::unique_ptr<Task> make_task(const TaskConfig& config, bool residual_model) {
  const TaskRegistration* r = find_task(config.name);
  if (!r) {
    std::string known;
    for (const auto& name : task_names()) known += (known.empty() ? "" : ", ") + name;
    throw TaskError("unknown task '" + config.name + "'; known tasks: " + known, {"task.name"});
  }
  check_option_values(r->options, config.options, "task '" + r->name + "'");
  const PluginOptions options(r->options, config.options);
  return r->make(TaskSettings{config.seq_len, options, residual_model});
}

TaskShape task_shape_of(const TaskConfig& config, bool residual_model) {
  return make_task(config, residual_model)->shape();
}

}  // namespace sinklab
