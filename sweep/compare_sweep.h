#pragma once
// `sinklab compare SWEEP.yaml`, minus the command line: plan and validate the sweep, write sweep.json,
// run what is not finished yet, then write the analysis report and print the per-variant table.
#include <filesystem>
#include <iosfwd>

#include "configs/config_loader.h"

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

}  // namespace sinklab::sweep
