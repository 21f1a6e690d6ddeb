// sinklab train CONFIG [--set k=v]... [--name NAME] [--out DIR] [--seed N] [--threads N] [--quiet]
//               [--force | --skip-finished] [--wide]
// sinklab train --resume RUN_DIR [--set train.max_steps=N] [--skip-finished] [--quiet] [--wide]
// either under mpirun with --mpi [--peer-timeout S]: one run's batch shards over the ranks (docs/cluster.md)
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

#include "apps/commands.h"
#include "run_files/extreme_token_table.h"
#include "run_files/head_table.h"
#include "run_files/run_times.h"
#include "sweep/run_naming.h"
#include "train/interrupt.h"
#include "train/train_in_folder.h"
#include "train/trainer.h"
#ifdef SINKLAB_HAVE_MPI
#include "cluster/mpi_channel.h"
#include "cluster/mpi_train.h"
#endif

namespace sinklab::apps {
namespace {

struct TrainArgs {
  TrainRequest request;
  bool wide = false;  // the head table with every defined column, past 120 characters
  bool mpi = false;   // one run over the ranks of an MPI job (cluster/mpi_train.h)
  int peer_timeout = 600;
};

namespace fs = std::filesystem;

// --quiet's one line: how the run ended, its main numbers and where it is.
std::string one_line_result(const RunSummary& s, const fs::path& dir) {
  std::string stop = s.stop_reason;
  // train.stop_max_abs_error compares the task's step error, which a token task measures as its share of
  // wrong tokens: name the quantity (summary.json keeps the key's name).
  if (stop == "max_abs_error")
    stop = s.eval_loss ? "token error rate below train.stop_max_abs_error"
                       : "max |pred - y| below train.stop_max_abs_error";
  std::string line = s.name + ": " + stop + " after " + std::to_string(s.steps) + " steps";
  char numbers[160];
  if (std::isfinite(s.eval_mse)) {
    std::snprintf(numbers, sizeof numbers, ", eval_mse %.3g", s.eval_mse);
    line += numbers;
  } else if (s.eval_loss) {
    std::snprintf(numbers, sizeof numbers, ", eval_loss %.4f, eval_accuracy %.4f", *s.eval_loss,
                  s.eval_accuracy.value_or(NAN));
    line += numbers;
  }
  std::snprintf(numbers, sizeof numbers, ", sink_rate %.4f", s.sink_rate);
  return line + numbers + "; run directory: " + dir.string();
}

void report_end(const TrainedRun& run, const TrainArgs& a) {
  const RunSummary& summary = run.summary;
  const fs::path& dir = run.dir;
  if (run.skipped) {
    std::printf("%s already holds a finished run of this config (summary.json); nothing to do (--skip-finished)\n",
                dir.c_str());
    return;
  }
  switch (outcome_of(summary)) {
    case RunOutcome::interrupted:
      std::fprintf(stderr, "sinklab: interrupted at step %lld; continue with: %s\n",
                   static_cast<long long>(summary.steps), sinklab_command({"train", "--resume", dir.string()}).c_str());
      throw CLI::RuntimeError(128 + interrupt_signal());
    case RunOutcome::diverged:
      std::fprintf(stderr, "sinklab: diverged: %s; summary with null metrics in %s\n", summary.non_finite.c_str(),
                   (dir / "summary.json").c_str());
      throw CLI::RuntimeError(kTrainExitDiverged);
    case RunOutcome::finished:
      if (a.request.quiet) {  // errors and this line only (the table is in summary.json; `sinklab report` draws it)
        std::printf("%s\n", one_line_result(summary, dir).c_str());
        return;
      }
      std::printf("%s", format_head_table(summary, a.wide ? HeadTableWidth::wide : HeadTableWidth::narrow).c_str());
      if (summary.extreme_tokens) std::printf("%s", format_extreme_token_table(*summary.extreme_tokens).c_str());
      if (summary.time_seconds) std::printf("%s\n", format_run_times(*summary.time_seconds).c_str());
      std::printf("run directory: %s\n", dir.c_str());
      return;
  }
}

void run_train(const TrainArgs& a) {
  TrainRequest request = a.request;
  request.command_line = command_line();
  if (!request.command_line.empty()) request.program = request.command_line.front();  // as sinklab_command
  request.name_with_overrides = sweep::name_with_overrides;
  if (a.mpi) {
#ifdef SINKLAB_HAVE_MPI
    const cluster::MpiSession session;  // finalized when this returns or throws (unless a rank was lost)
    const std::optional<TrainedRun> run =
        cluster::train_on_ranks(request, session.rank(), session.size(), a.peer_timeout);
    if (run) report_end(*run, a);
    return;
#else
    throw std::invalid_argument(
        "--mpi: this sinklab was built without MPI (SINKLAB_MPI=OFF or Open MPI missing): run scripts/setup.sh and "
        "rebuild (docs/cluster.md)");
#endif
  }
  report_end(train_in_folder(request), a);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd = app.add_subcommand("train", "Train one model from a YAML config and measure its attention sinks");
  cmd->add_option("config", args->request.config, "YAML config file (see docs/config.md); not needed with --resume");
  cmd->add_option("--set", args->request.sets,
                  "Override a config key: --set model.attention.normalizer=relu (repeatable)");
  cmd->add_option("--name", args->request.name,
                  "Run name (default: the config's name, then each --set/--threads that changes the file's "
                  "value, e.g. 1x1_softmax-normalizer=relu)");
  cmd->add_option("--out", args->request.out, "Run directory (default runs/<name>-seed<seed>)");
  cmd->add_option("--seed", args->request.seed, "Seed, 0 .. 2^64-1 (same as --set seed=N)");
  cmd->add_option("--threads", args->request.threads, "OpenMP threads, 1 .. 256 (same as --set threads=N)");
  cmd->add_option("--resume", args->request.resume,
                  "Continue an unfinished run bit-identically: RUN_DIR (or RUN_DIR/checkpoint.bin); the run's own "
                  "config.yaml is used. With --set train.max_steps=N above the run's, extends a finished run "
                  "(not with optimizer.schedule cosine), to the bits of a run trained for N steps from the start");
  cmd->add_flag("--quiet", args->request.quiet,
                "Print only errors, warnings and one line with the result (no progress, no head table)");
  cmd->add_flag("--force", args->request.force, "Start over in --out, replacing a finished or unfinished run");
  cmd->add_flag("--skip-finished", args->request.skip_finished,
                "When --out (or --resume's folder) holds a finished run of this same config, say so and exit 0 "
                "instead of refusing (scripts that rerun a list of trainings)");
  cmd->add_flag("--wide", args->wide,
                "Print every defined column of the final head table (default: those that fit 120 characters)");
  CLI::Option* mpi = cmd->add_flag("--mpi", args->mpi,
                                   "Under mpirun: one run whose train.batch_shards are spread over the ranks, "
                                   "bit-identical to one process; rank 0 writes the run folder (docs/cluster.md)");
  cmd->add_option("--peer-timeout", args->peer_timeout,
                  "With --mpi: seconds a rank waits for another's gradient before the job counts it as lost "
                  "(default 600)")
      ->check(CLI::Range(3, 86400))
      ->needs(mpi);
  cmd->callback([args] { run_train(*args); });
}

}  // namespace sinklab::apps
