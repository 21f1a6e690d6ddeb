#include "data/task_registry.h"

#include "data/bigram_backcopy_task.h"
#include "data/copy_task.h"
#include "data/induction_task.h"
#include "data/reverse_task.h"
#include "data/text_lm_task.h"
#include "data/trigger_conditional_task.h"

namespace sinklab {

const std::vector<TaskRegistration>& task_registrations() {
  // One line per task plug-in.
  static const std::vector<TaskRegistration> tasks{
      trigger_conditional_task_registration(),
      copy_task_registration(),
      text_lm_task_registration(),
      bigram_backcopy_task_registration(),
      induction_task_registration(),
      reverse_task_registration(),
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

bool task_declares_option(std::string_view name, std::string_view key) {
  const TaskRegistration* r = find_task(name);
  if (!r) return false;
  for (const OptionSpec& o : r->options)
    if (o.key == key) return true;
  return false;
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

TaskConfig task_config_at_length(const TaskConfig& config, int seq_len) {
  TaskConfig t = config;
  t.seq_len = seq_len;
  if (task_declares_option(t.name, "trigger_min")) t.options.set("trigger_min", int64_t{1});
  if (task_declares_option(t.name, "trigger_max")) t.options.set("trigger_max", int64_t{-1});
  return t;
}

TaskConfig evaluation_task_config(const TaskConfig& config) {
  if (config.eval_seq_len == 0 || config.eval_seq_len == config.seq_len) return config;
  return task_config_at_length(config, config.eval_seq_len);
}

}  // namespace sinklab
