// sinklab compare SWEEP.yaml [--set KEY=VALUE]... [--jobs N] [--out DIR] [--dry-run]
//                 [--mpi [--threads N] [--worker-timeout S] [--no-shared-fs [--scratch DIR]]]  (docs/cluster.md)
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "sweep/compare_sweep.h"
#include "sweep/sweep_error.h"
#ifdef SINKLAB_HAVE_MPI
#include "cluster/mpi_channel.h"
#include "cluster/mpi_compare.h"
#endif

namespace sinklab::apps {
namespace {

struct CompareArgs {
  std::string sweep_file;
  std::string out;
  std::vector<std::string> sets;
  int jobs = 0;
  bool dry_run = false;
  bool mpi = false;  // the MPI runner (cluster/); the flags below need it
  int threads = 1;
  bool no_shared_fs = false;
  std::string scratch;
  int worker_timeout = 120;
};

// The sweep on the ranks of an MPI job; this rank's exit code.
int compare_on_mpi(const sweep::CompareOptions& options, const CompareArgs& a) {
#ifdef SINKLAB_HAVE_MPI
  cluster::ClusterOptions cluster;
  cluster.threads = a.threads;
  cluster.shared_fs = !a.no_shared_fs;
  cluster.scratch = a.scratch;
  cluster.worker_timeout_seconds = a.worker_timeout;
  const cluster::MpiSession session;  // finalized when this returns or throws
  return cluster::compare_sweep_mpi(options, cluster, session.rank(), session.size(), std::cout, std::cerr);
#else
  (void)options;
  (void)a;
  throw sweep::SweepError(
      "--mpi: this sinklab was built without MPI (SINKLAB_MPI=OFF or Open MPI missing): run scripts/setup.sh "
      "and rebuild (docs/cluster.md)");
#endif
}

void run_compare(const CompareArgs& a) {
  sweep::CompareOptions options;
  options.sweep_file = a.sweep_file;
  options.out_dir = a.out;
  options.sets = a.sets;
  options.jobs = a.jobs;
  options.dry_run = a.dry_run;
  options.vocab = registered_vocabulary();
  int code = 0;
  try {
    code = a.mpi ? compare_on_mpi(options, a) : sweep::compare_sweep(options, std::cout, std::cerr);
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
  cmd->add_option("--set", args->sets,
                  "Override a config key in every run: --set train.max_steps=200 (repeatable; not a key the "
                  "sweep varies or sets)");
  cmd->add_option("--jobs,-j", args->jobs, "Trainings at once (default: number of cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--out", args->out, "Output folder (default runs/<sweep name>, then -key=value per --set)");
  cmd->add_flag("--dry-run", args->dry_run,
                "List the runs, the complete command of each and which are finished; start nothing");
  CLI::Option* mpi = cmd->add_flag("--mpi", args->mpi,
                                   "Run on the ranks of an MPI job: rank 0 plans, the others train (docs/cluster.md)");
  mpi->excludes(cmd->get_option("--jobs"));
  cmd->add_option("--threads", args->threads, "With --mpi: threads of each training (default 1)")
      ->check(CLI::Range(1, 256))
      ->needs(mpi);
  CLI::Option* no_shared = cmd->add_flag(
      "--no-shared-fs", args->no_shared_fs,
      "With --mpi: workers train in a local scratch folder and send each run folder to rank 0");
  no_shared->needs(mpi);
  cmd->add_option("--scratch", args->scratch,
                  "With --no-shared-fs: the workers' local folder (default $TMPDIR/sinklab-scratch-<uid>)")
      ->needs(no_shared);
  cmd->add_option("--worker-timeout", args->worker_timeout,
                  "With --mpi: seconds of silence after which a worker rank counts as lost and its run is given to "
                  "another (default 120; workers say they are alive every second)")
      ->check(CLI::Range(3, 86400))
      ->needs(mpi);
  cmd->callback([args] { run_compare(*args); });
}

}  // namespace sinklab::apps
