#pragma once
// `sinklab compare SWEEP.yaml`, minus the command line: plan and validate the sweep, write sweep.json,
// run what is not finished yet, then write the analysis report and print the per-variant table.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>
#include <iosfwd>

#include "config_loading/config_loader.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

struct CompareOptions {
  std::filesystem::path sweep_file;
  std::filesystem::path out_dir;     // empty = runs/<sweep name>, then "-key=value" per --set (run_naming.h)
  std::vector<std::string> sets;     // compare --set KEY=VALUE, for every run (compare_sets.h)
  int jobs = 0;                      // 0 = number of cores
  bool dry_run = false;              // list the runs (and which are finished); write and run nothing
  std::filesystem::path executable;  // the sinklab binary; empty = /proc/self/exe
  ConfigVocabulary vocab;            // registry names for validation (empty lists are not checked)
  bool report = true;                // write the analysis report after running
  bool render_plots = true;          // let gnuplot render the report's figures
  std::optional<std::chrono::milliseconds> status_interval;  // between status lines on `err`; empty = the runner's
};

// compare's exit status when every run finished and the report was written, but damaged run files were
// moved to SWEEP/quarantine/ and their runs trained again (docs/compare.md, "Exit status").
inline constexpr int kCompareExitFilesMovedAside = 4;

// Returns the exit code: 0 when every run finished (reached its stop rule, its step limit, or diverged)
// and the report was written, 1 when some run failed (reported on `err`, the others still ran) or the
// report could not be written or lists a failed run, kCompareExitFilesMovedAside when neither but damaged
// run files were moved aside (their runs redone). Problems with the sweep itself throw SweepError before
// anything runs.
int compare_sweep(const CompareOptions& options, std::ostream& out, std::ostream& err);

// compare_sweep's steps, for runners other than the local one (`compare --mpi`, cluster/):
struct PlannedSweep {
  SweepSpec spec;
  std::vector<PlannedRun> runs;  // validated, in plan order; their overrides end with the --set ones
  std::filesystem::path out_dir;
  std::vector<std::string> compare_sets;  // the --set list as typed: part of the sweep's identity
  std::filesystem::path executable;       // as in CompareOptions, for the --dry-run commands
  int jobs = 1;                           // trainings at once (resolved), for the --dry-run commands
};
// Loads, expands and validates the sweep (SweepError before anything is written) and prints its
// header line ("sweep NAME: N runs (...) in DIR").
PlannedSweep plan_sweep(const CompareOptions& options, std::ostream& out);
// The --dry-run listing: every run, the complete command that would train it (binary, config, every
// --set, --out, --threads, --resume or --force as its folder asks) and whether it is finished. Refuses,
// like a real compare, a folder whose sweep.json has another --set list.
void list_planned_runs(const PlannedSweep& plan, std::ostream& out);
// Refuses a folder whose sweep.json has another --set list (check_same_compare_sets), clears runs whose
// overrides changed since the last sweep.json, then writes sweep.json.
void prepare_sweep_folder(const PlannedSweep& plan, std::ostream& out);
// The final count, the failure report on `err` and the analysis report; returns the exit code.
int finish_sweep(const PlannedSweep& plan, const SweepOutcome& outcome, const CompareOptions& options,
                 std::ostream& out, std::ostream& err);

}  // namespace sinklab::sweep
