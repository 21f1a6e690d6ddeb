#include "data/task.h"

#include "data/trigger_conditional_task.h"

namespace sinklab {

// The one list of tasks: make_task() and task_names() both read it, so they cannot disagree.
namespace {

struct TaskEntry {
  const char* name;
  std::unique_ptr<Task> (*make)(const TaskConfig&, bool residual_model);
};

constexpr TaskEntry kTasks[] = {
    {"trigger_conditional",
     [](const TaskConfig& c, bool residual) -> std::unique_ptr<Task> {
       return std::make_unique<TriggerConditionalTask>(c, residual);
     }},
};

}  // namespace

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const auto& entry : kTasks) names.emplace_back(entry.name);
  return names;
}

std::unique_ptr<Task> make_task(const TaskConfig& config, bool residual_model) {
  for (const auto& entry : kTasks) {
    if (config.name == entry.name) return entry.make(config, residual_model);
  }
  std::string known;
  for (const auto& name : task_names()) known += (known.empty() ? "" : ", ") + name;
  throw TaskError("unknown task '" + config.name + "'; known tasks: " + known);
}

}  // namespace sinklab
