#pragma once
// The one list of task plug-ins (task_registry.cpp): builds a task by name from its config.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/task_config.h"
#include "data/task_registration.h"

namespace sinklab {

const std::vector<TaskRegistration>& task_registrations();
// nullptr for an unknown name.
const TaskRegistration* find_task(std::string_view name);
std::vector<std::string> task_names();
// Whether task `name` declares the option `key` (false for an unknown task).
bool task_declares_option(std::string_view name, std::string_view key);

// Builds the task `config.name` with its options (defaults for unset ones); an unknown name throws
// TaskError listing the known ones, an inconsistent config TaskError naming its keys.
// `residual_model` resolves targets that depend on the model (the trigger task's `target: auto`).
std::unique_ptr<Task> make_task(const TaskConfig& config, bool residual_model);
// make_task(config, residual_model)->shape().
TaskShape task_shape_of(const TaskConfig& config, bool residual_model);

// The same task at another sequence length (evaluation sets longer or shorter than training's). The
// evaluation set draws no training triggers, so a training range the new length cannot hold is reset
// to 1 .. T-1 rather than refused.
TaskConfig task_config_at_length(const TaskConfig& config, int seq_len);
// The task the evaluation set is drawn from: task_config_at_length(config, eval_seq_len) when
// task.eval_seq_len is set, else config itself.
TaskConfig evaluation_task_config(const TaskConfig& config);

}  // namespace sinklab
