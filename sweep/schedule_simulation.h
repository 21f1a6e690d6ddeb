#pragma once
// The schedule of `compare --mpi` on paper: runs handed out in a fixed order to whichever worker is
// free first (rank 0 hands out runs the same way, longest expected first), each run taking a known
// time. Gives the makespan to set against the ideal total / workers (docs/cluster.md).
#include <cstddef>
#include <vector>

namespace sinklab::sweep {

struct SimulatedSchedule {
  int workers = 0;
  double total_seconds = 0.0;     // sum of the run times
  double ideal_seconds = 0.0;     // total / workers: perfect balance, no run split
  double longest_seconds = 0.0;   // no schedule ends before its longest run
  double makespan_seconds = 0.0;  // when the last run ends
};

// `seconds[order[k]]` is the k-th run handed out. Throws std::invalid_argument for workers < 1, an order
// that is not a permutation of the runs, or a negative or non-finite time.
SimulatedSchedule simulate_schedule(const std::vector<double>& seconds, const std::vector<std::size_t>& order,
                                    int workers);

}  // namespace sinklab::sweep
