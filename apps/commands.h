#pragma once
// The sinklab subcommands. Each adds itself to the CLI11 app and runs from the callback;
// a command reports user errors with one clear message and a non-zero exit code.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace sinklab::apps {

void add_train_command(CLI::App& app);    // apps/train_command.cpp
void add_compare_command(CLI::App& app);  // apps/compare_command.cpp
void add_report_command(CLI::App& app);   // apps/report_command.cpp

// The process's own command line, recorded in run.json (set by main).
const std::vector<std::string>& command_line();

}  // namespace sinklab::apps
