// sinklab: train tiny transformers, measure attention sinks, compare normalizers.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "apps/commands.h"
#include "apps/unknown_arguments.h"
#include "apps/user_error.h"
#include "core/cpu/cpu_description.h"
#include "core/cpu/isa_level.h"
#include "core/kernels/matmul_bf16.h"
#include "train/train_in_folder.h"
#include "run_files/run_provenance.h"

namespace sinklab::apps {
namespace {
std::vector<std::string> g_command_line;
}
const std::vector<std::string>& command_line() { return g_command_line; }

std::string sinklab_command(const std::vector<std::string>& args) {
  return suggested_command(g_command_line.empty() ? std::string("sinklab") : g_command_line.front(), args);
}

// `sinklab --version`: the build and the kernel path this machine runs (bit-identical results need both).
std::string version_text() {
  const CpuDescription cpu = describe_cpu();
  const kernels::Bf16MatmulSupport bf16 = kernels::bf16_matmul_support();
  std::string features;
  for (const std::string& f : cpu.features) features += (features.empty() ? "" : " ") + f;
  return "sinklab " SINKLAB_VERSION " (git " + git_revision() + ", " __VERSION__ ")\n" +
         "cpu: " + cpu.model + "\nfeatures: " + features + "\ncpu level: " + cpu.cpu_level +
         "\nkernel path: " + cpu.kernel_path + " (SINKLAB_MAX_ISA caps the level)" +
         "\nbf16 matmul (train.precision: bf16): " + (bf16.native ? "native, " : "emulated, ") + bf16.implementation;
}

}  // namespace sinklab::apps

int main(int argc, char** argv) {
  sinklab::apps::g_command_line.assign(argv, argv + argc);
  CLI::App app{"sinklab: train tiny transformers and measure where attention sinks form"};
  app.require_subcommand(1);
  app.set_version_flag("--version", sinklab::apps::version_text,
                       "Print the version, the CPU and its kernel path, then exit");
  for (const auto& command : sinklab::apps::commands()) command.add(app);
  // An empty value is never meaningful (`--out ""` would otherwise mean "the default folder").
  const CLI::Validator non_empty([](const std::string& v) { return v.empty() ? "is empty" : std::string(); }, "");
  for (CLI::App* command : app.get_subcommands({}))
    for (CLI::Option* option : command->get_options())
      if (option->get_type_size() != 0 && option->get_name() != "--help") option->check(non_empty);
  try {
    sinklab::kernel_isa_level();  // a bad SINKLAB_MAX_ISA is refused before anything runs
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A misspelled command or flag gets a suggestion and exit status 2, as a misspelled config key does.
    if (e.get_exit_code() != 0) {
      if (const auto message = sinklab::apps::unknown_argument_message(app)) {
        std::fprintf(stderr, "sinklab: error: %s\n", message->c_str());
        return 2;
      }
    }
    // Other usage errors (a missing argument, a value CLI11 cannot convert): CLI11's message, and the
    // exit status 2 of every error the user can fix, not CLI11's own codes (100 and up). A command's own
    // status (3 for a diverged run, 130 after Ctrl-C) comes through here too and is kept.
    const int status = app.exit(e);
    return status >= static_cast<int>(CLI::ExitCodes::IncorrectConstruction) && status < 128 ? 2 : status;
  } catch (const std::exception& e) {
    return sinklab::apps::report_exception(e);
  }
  return 0;
}
