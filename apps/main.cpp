// sinklab: train tiny transformers, measure attention sinks, compare normalizers.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "apps/user_error.h"

namespace sinklab::apps {
namespace {
std::vector<std::string> g_command_line;
}
const std::vector<std::string>& command_line() { return g_command_line; }
}  // namespace sinklab::apps

int main(int argc, char** argv) {
  sinklab::apps::g_command_line.assign(argv, argv + argc);
  CLI::App app{"sinklab: train tiny transformers and measure where attention sinks form"};
  app.require_subcommand(1);
  for (const auto& command : sinklab::apps::commands()) command.add(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // usage errors: message and exit code from CLI11 (non-zero)
  } catch (const std::exception& e) {
    return sinklab::apps::report_exception(e);
  }
  return 0;
}
