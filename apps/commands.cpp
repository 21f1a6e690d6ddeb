#include "apps/commands.h"

namespace sinklab::apps {

// Defined in apps/<name>_command.cpp.
void add_train_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_construct_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_error_vs_sink_command(CLI::App& app);
void add_sample_command(CLI::App& app);
void add_schedule_command(CLI::App& app);
void add_probe_command(CLI::App& app);

const std::vector<CommandRegistration>& commands() {
  // One line per subcommand.
  static const std::vector<CommandRegistration> list{
      {"train", add_train_command},
      {"compare", add_compare_command},
      {"report", add_report_command},
      {"inspect", add_inspect_command},
      {"construct", add_construct_command},
      {"eval", add_eval_command},
      {"export", add_export_command},
      {"error-vs-sink", add_error_vs_sink_command},
      {"sample", add_sample_command},
      {"schedule", add_schedule_command},
      {"probe", add_probe_command},
  };
  return list;
}

}  // namespace sinklab::apps
