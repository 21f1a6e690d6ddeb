#pragma once
// Whether a run's OpenMP threads will compete with other programs for the cores. Threads that wait on
// each other at every parallel loop collapse when a core they need is taken: on a 2-core machine at a
// load average of 16, 300 1x1 steps took 52 s at threads 2 against 2.8 s at threads 1. Nothing fails,
// the run is only slow (docs/reproducibility.md), so `sinklab train` says so once at the start.
#include <optional>
#include <string>

namespace sinklab {

struct MachineLoad {
  double load_average = 0;  // the 1-minute load average (/proc/loadavg): runnable processes, ours not yet among them
  int cores = 1;            // the CPUs this process may run on (its affinity mask: taskset, cgroups, Slurm)
};

// This machine's load now; nullopt where /proc/loadavg cannot be read (not Linux, a restricted container).
std::optional<MachineLoad> machine_load();

// One line for the user when `threads` >= 2 would contend: more threads than cores, or the load average
// plus the threads asked above the cores. Empty otherwise, and always for 1 thread (nothing to wait on).
std::string thread_contention_warning(int threads, const MachineLoad& load);

}  // namespace sinklab
