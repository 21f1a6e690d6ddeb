#pragma once
// A worker rank of `compare --mpi`: asks rank 0 for a run, trains it as a `sinklab train` child, sends
// back how it ended (and, without a shared filesystem, the run folder), until rank 0 says stop.
#include <iosfwd>

#include "cluster/mpi_compare.h"

namespace sinklab::cluster {

// Returns 0 after rank 0's stop, 128 + N when this rank got signal N (its training is stopped first:
// SIGTERM lets `train` write its checkpoint, so the next sweep resumes it).
int run_worker(const ClusterOptions& cluster, std::ostream& err);

}  // namespace sinklab::cluster
