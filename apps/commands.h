#pragma once
// The sinklab subcommands. Each lives in its own apps/<name>_command.cpp, adds itself to the CLI11 app
// and runs from the callback; a command reports user errors with one clear message and a non-zero
// exit code. apps/commands.cpp holds the one list main() installs.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace sinklab::apps {

struct CommandRegistration {
  const char* name;
  void (*add)(CLI::App& app);
};

// Every subcommand, in the order `sinklab --help` lists them.
const std::vector<CommandRegistration>& commands();

// The process's own command line, recorded in run.json (set by main).
const std::vector<std::string>& command_line();

// A sinklab command to print for the user to paste: this binary as it was invoked (argv[0], e.g.
// build/sinklab) and then `args`, every word quoted for a POSIX shell (core/text/shell_quote.h).
std::string sinklab_command(const std::vector<std::string>& args);

}  // namespace sinklab::apps
