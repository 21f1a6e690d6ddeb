// sinklab compare SWEEP.yaml [--jobs N] [--out DIR] [--dry-run]
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "apps/commands.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "sweep/compare_sweep.h"
#include "sweep/sweep_error.h"

namespace sinklab::apps {
namespace {

struct CompareArgs {
  std::string sweep_file;
  std::string out;
  int jobs = 0;
  bool dry_run = false;
};

void run_compare(const CompareArgs& a) {
  sweep::CompareOptions options;
  options.sweep_file = a.sweep_file;
  options.out_dir = a.out;
  options.jobs = a.jobs;
  options.dry_run = a.dry_run;
  options.vocab = ConfigVocabulary{normalizer_registry().names(), task_names()};
  int code = 0;
  try {
    code = sweep::compare_sweep(options, std::cout, std::cerr);
  } catch (const sweep::SweepInterrupted& e) {
    std::fprintf(stderr, "sinklab: %s\n", e.what());
    throw CLI::RuntimeError(128 + e.signal());  // the shell convention for "killed by signal N"
  } catch (const sweep::SweepError& e) {
    // A mistake in the sweep file or its flags: one message, exit 2, nothing ran.
    std::fprintf(stderr, "sinklab: error: %s\n", e.what());
    throw CLI::RuntimeError(2);
  }
  if (code != 0) throw CLI::RuntimeError(code);  // main returns it without printing anything more
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Run a grid of trainings (variants x seeds x values; parallel, resumable) and report them");
  cmd->add_option("sweep", args->sweep_file, "Sweep YAML file (see docs/compare.md)")->required();
  cmd->add_option("--jobs,-j", args->jobs, "Trainings at once (default: number of cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--out", args->out, "Output folder (default runs/<sweep name>)");
  cmd->add_flag("--dry-run", args->dry_run, "List the runs and which are finished; start nothing");
  cmd->callback([args] { run_compare(*args); });
}

}  // namespace sinklab::apps
