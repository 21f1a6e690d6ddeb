#pragma once
// Runs a planned sweep: up to `jobs` `sinklab train` children at once, resumable, failures collected.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run_files/quarantine.h"
#include "sweep/child_process.h"
#include "sweep/sweep_plan.h"
#include "sweep/train_arguments.h"

namespace sinklab::sweep {

struct RunnerOptions {
  std::filesystem::path executable;  // the sinklab binary; empty = /proc/self/exe
  int jobs = 0;                      // children at once; 0 = number of cores
  std::size_t log_tail_lines = 15;   // lines of train.log quoted for a failed run
  // Receives one line per finished run (and one for skipped runs); empty = print to stdout.
  std::function<void(const std::string&)> progress;
  // Receives, every status_interval while trainings go, which are going with their step and ETA and
  // how many runs are finished (run_status.h); empty = none.
  std::function<void(const std::string&)> status;
  std::chrono::milliseconds status_interval{10000};
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
  std::vector<QuarantinedFile> quarantined;  // damaged checkpoints moved aside: those runs started over
  int max_parallel = 0;                // most children alive at once
};

// The run folder of `run` inside the sweep output folder: <out>/runs/<id>.
std::filesystem::path run_dir(const std::filesystem::path& out_dir, const PlannedRun& run);
// A run is finished when its summary.json reads through its one reader (run_files/run_summary.h; a
// diverged run's too).
bool run_finished(const std::filesystem::path& run_dir);
// The same for a planned run of a sweep: its summary.json must also be its own (foreign_summary).
bool run_finished(const std::filesystem::path& run_dir, const PlannedRun& run);
// Why RUN_DIR's summary.json, which reads, is not `run`'s: it names another seed than planned (a folder
// copied or linked from another run; the report lists such a run as failed, report/report_runs.cpp).
// Empty when it is the run's own, or when there is no readable summary.json.
std::string foreign_summary(const std::filesystem::path& run_dir, const PlannedRun& run);
// The number of children to run at once when the user does not say (the usable cores).
int default_jobs();

// The sinklab binary to start trainings with (empty = /proc/self/exe); SweepError when it is missing.
std::filesystem::path resolve_executable(std::filesystem::path executable);

// Makes `dir` ready for `train` started as `start` says: a folder with leftovers but no checkpoint is
// cleared (train gets --force), a missing one created. SweepError names the folder on failure.
void prepare_run_folder(const std::filesystem::path& dir, RunStart start);

// Indices of the runs without a finished summary.json, in plan order; the finished ones are recorded
// in outcome.skipped (and skipped_diverged) and announced by one "resume: ..." line through `say`.
// A run folder holding another run (foreign_summary) is moved aside first (quarantine_foreign_run_files,
// recorded like any quarantine), so the run is trained instead of being skipped by every compare; so are
// the damaged files of an unfinished run (quarantine_damaged_run_files).
std::vector<std::size_t> unfinished_runs(const std::vector<PlannedRun>& runs, const std::filesystem::path& out_dir,
                                         SweepOutcome& outcome, const std::function<void(const std::string&)>& say);

// Classifies the end of one run from its exit status and its folder's summary.json (completed, diverged
// or failed, as run_sweep does), records it in `outcome` and says its progress line ("[3/30] ..."
// comes as `counter`). A non-empty `failure_reason` makes it a failure with that reason (a run that
// could not be started or delivered).
void record_run_end(const PlannedRun& run, const std::filesystem::path& dir, const ExitStatus& status,
                    std::chrono::steady_clock::duration took, bool resumed, const std::string& counter,
                    std::size_t log_tail_lines, SweepOutcome& outcome,
                    const std::function<void(const std::string&)>& say, const std::string& failure_reason = "");

// Moves aside, before a run starts, what would fail it on every compare: a summary.json that is not a
// JSON object (compare calls such a run unfinished, `train --resume` finished) and a damaged
// checkpoint.bin (run_files/quarantine.h). Returns what was moved; throws SweepError when it cannot.
std::vector<QuarantinedFile> quarantine_damaged_run_files(const std::filesystem::path& dir, const std::string& run_id,
                                                          const std::filesystem::path& quarantine);

// Moves aside, from a run folder whose summary.json belongs to another run (foreign_summary), what would
// make it finished or resumable: a symlinked folder as a whole (never the files of the run it points to),
// else summary.json and checkpoint.bin. The run then starts over. Throws SweepError when it cannot.
std::vector<QuarantinedFile> quarantine_foreign_run_files(const std::filesystem::path& dir, const PlannedRun& run,
                                                          const std::filesystem::path& quarantine);

// Records a file moved aside before `run` started (run_files/quarantine.h) in
// outcome.quarantined and says so: the run starts over instead of failing on every compare.
void record_quarantine(const PlannedRun& run, QuarantinedFile moved, SweepOutcome& outcome,
                       const std::function<void(const std::string&)>& say);

// "[3/30] ": the progress counter of the done-th of total runs.
std::string counter_text(std::size_t done, std::size_t total);

// Runs every unfinished run. An unfinished run folder with a checkpoint is resumed from it (`--resume`),
// one without is cleared and started over (`--force`); see train_arguments.h. A damaged checkpoint is
// first moved to OUT_DIR/quarantine (record_quarantine), so that run starts over. Never stops early for a
// failed run; a diverged run (kTrainExitDiverged) counts as finished. Throws SweepError for setup problems (executable
// missing, folder not writable) and SweepInterrupted on SIGINT/SIGTERM/SIGHUP, after terminating its children.
SweepOutcome run_sweep(const std::vector<PlannedRun>& runs, const std::filesystem::path& out_dir,
                       const RunnerOptions& options);

// "finished 9 of 10 runs (2 diverged), 1 failed": the sweep's final count.
std::string format_final_count(const SweepOutcome& outcome);

// The end-of-sweep report of failed runs: id, exit status, where the log is, and its last lines.
std::string format_failure_report(const std::vector<RunFailure>& failures);

// The end-of-sweep list of damaged checkpoints moved aside: run, damage, where the file went.
std::string format_quarantine_report(const std::vector<QuarantinedFile>& moved);

}  // namespace sinklab::sweep
