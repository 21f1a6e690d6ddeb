#pragma once
// `sinklab compare SWEEP.yaml --mpi` (docs/cluster.md): rank 0 plans the sweep exactly as the local
// `compare` does, hands the unfinished runs out to the other ranks one at a time, longest expected
// first, and writes the report; every other rank trains the runs it is given, each as a `sinklab train`
// child process like the local runner's.
#include <filesystem>
#include <iosfwd>

#include "sweep/compare_sweep.h"

namespace sinklab::cluster {

struct ClusterOptions {
  int threads = 1;          // threads of each training (`train --threads`, OMP_NUM_THREADS)
  bool shared_fs = true;    // false: workers train in `scratch` and send the run folder to rank 0
  std::filesystem::path scratch;  // worker-local folder for run folders without a shared filesystem;
                                  // empty = $TMPDIR (or /tmp) / sinklab-scratch-<uid>
  int worker_timeout_seconds = 120;  // rank 0 gives up on a worker rank silent this long (its run is requeued)
};

// Called on every rank after MPI_Init. Returns this rank's exit code: on rank 0 that of compare_sweep;
// on workers 0 (or 128 + N when stopped by signal N). Rank 0 throws SweepError for a bad sweep (after
// telling the workers to stop) and SweepInterrupted when stopped by a signal.
int compare_sweep_mpi(const sweep::CompareOptions& options, const ClusterOptions& cluster, int rank, int ranks,
                      std::ostream& out, std::ostream& err);

}  // namespace sinklab::cluster
