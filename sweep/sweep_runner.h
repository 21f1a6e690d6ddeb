#pragma once
// Runs a planned sweep: up to `jobs` `sinklab train` children at once, resumable, failures collected.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/child_process.h"
#include "sweep/sweep_plan.h"

namespace sinklab::sweep {

struct RunnerOptions {
  std::filesystem::path executable;  // the sinklab binary; empty = /proc/self/exe
  int jobs = 0;                      // children at once; 0 = number of cores
  std::size_t log_tail_lines = 15;   // lines of train.log quoted for a failed run
  // Receives one line per finished run (and one for skipped runs); empty = print to stdout.
  std::function<void(const std::string&)> progress;
};

struct RunFailure {
  std::string id;
  std::string label;
  ExitStatus status;
  std::string reason;    // status.describe(), or why a clean exit still counts as a failure
  std::string log_tail;  // last lines of train.log
  std::filesystem::path log;
};

struct SweepOutcome {
  std::vector<std::string> skipped;           // ids already finished before this call (diverged included)
  std::vector<std::string> skipped_diverged;  // those of them that had diverged
  std::vector<std::string> completed;         // ids run to completion by this call
  std::vector<std::string> diverged;          // ids run by this call that diverged (finished, not failed)
  std::vector<RunFailure> failed;
  int max_parallel = 0;                // most children alive at once
};

// The run folder of `run` inside the sweep output folder: <out>/runs/<id>.
std::filesystem::path run_dir(const std::filesystem::path& out_dir, const PlannedRun& run);
// A run is finished when its summary.json exists and parses as a JSON object.
bool run_finished(const std::filesystem::path& run_dir);
// The number of children to run at once when the user does not say (the usable cores).
int default_jobs();

// Runs every unfinished run. An unfinished run folder with a checkpoint is resumed from it (`--resume`),
// one without is cleared and started over (`--force`); see train_arguments.h. Never stops early for a
// failed run; a diverged run (kTrainExitDiverged) counts as finished. Throws SweepError for setup problems (executable missing, folder not
// writable) and SweepInterrupted on SIGINT/SIGTERM/SIGHUP, after terminating its children.
SweepOutcome run_sweep(const std::vector<PlannedRun>& runs, const std::filesystem::path& out_dir,
                       const RunnerOptions& options);

// "finished 9 of 10 runs (2 diverged), 1 failed": the sweep's final count.
std::string format_final_count(const SweepOutcome& outcome);

// The end-of-sweep report of failed runs: id, exit status, where the log is, and its last lines.
std::string format_failure_report(const std::vector<RunFailure>& failures);

}  // namespace sinklab::sweep
