#pragma once
// `sinklab compare SWEEP.yaml`, minus the command line: plan and validate the sweep, write sweep.json,
// run what is not finished yet, then write the analysis report and print the per-variant table.
#include <filesystem>
#include <iosfwd>

#include "config_loading/config_loader.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

struct CompareOptions {
  std::filesystem::path sweep_file;
  std::filesystem::path out_dir;     // empty = runs/<sweep name>
  int jobs = 0;                      // 0 = number of cores
  bool dry_run = false;              // list the runs (and which are finished); write and run nothing
  std::filesystem::path executable;  // the sinklab binary; empty = /proc/self/exe
  ConfigVocabulary vocab;            // registry names for validation (empty lists are not checked)
  bool report = true;                // write the analysis report after running
  bool render_plots = true;          // let gnuplot render the report's figures
};

// Returns the exit code: 0 when every run finished (reached its stop rule, its step limit, or diverged)
// and the report was written, 1 when some run failed (reported on `err`, the others still ran) or the
// report could not be written. Problems with the
// sweep itself throw SweepError before anything runs.
int compare_sweep(const CompareOptions& options, std::ostream& out, std::ostream& err);

// compare_sweep's steps, for runners other than the local one (`compare --mpi`, cluster/):
struct PlannedSweep {
  SweepSpec spec;
  std::vector<PlannedRun> runs;  // validated, in plan order
  std::filesystem::path out_dir;
};
// Loads, expands and validates the sweep (SweepError before anything is written) and prints its
// header line ("sweep NAME: N runs (...) in DIR").
PlannedSweep plan_sweep(const CompareOptions& options, std::ostream& out);
// The --dry-run listing: every run, its train command and whether it is finished.
void list_planned_runs(const PlannedSweep& plan, std::ostream& out);
// Clears runs whose overrides changed since the last sweep.json, then writes sweep.json.
void prepare_sweep_folder(const PlannedSweep& plan, std::ostream& out);
// The final count, the failure report on `err` and the analysis report; returns the exit code.
int finish_sweep(const PlannedSweep& plan, const SweepOutcome& outcome, const CompareOptions& options,
                 std::ostream& out, std::ostream& err);

}  // namespace sinklab::sweep
