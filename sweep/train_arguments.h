#pragma once
// The `sinklab train` command line of one run of a sweep, and how it starts given what its run folder
// already holds: `train` refuses a folder with an unfinished run unless told to resume or start over.
#include <filesystem>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"

namespace sinklab::sweep {

enum class RunStart {
  fresh,       // no folder, or an empty one
  resume,      // an unfinished run with DIR/checkpoint.bin: continue it (`--resume DIR`)
  start_over,  // leftovers without a checkpoint: nothing to continue from (`--force`)
};

// Looks at an unfinished run folder (the caller has checked that it holds no finished summary).
RunStart choose_run_start(const std::filesystem::path& run_dir);

// argv[1..] of the child: `train CONFIG --set k=v ... --out DIR`, then `--resume DIR` or `--force`
// as `start` says, then `--threads 1` when several children share the cores (jobs > 1).
std::vector<std::string> train_arguments(const PlannedRun& run, const std::filesystem::path& run_dir, int jobs,
                                         RunStart start);

}  // namespace sinklab::sweep
