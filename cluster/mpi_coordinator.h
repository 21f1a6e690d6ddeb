#pragma once
// Rank 0 of `compare --mpi`: plans and validates the sweep (as the local compare does), hands runs out
// to idle workers, longest expected first, records every outcome and writes the report.
#include <iosfwd>

#include "cluster/mpi_compare.h"

namespace sinklab::cluster {

int coordinate_sweep(const sweep::CompareOptions& options, const ClusterOptions& cluster, int ranks,
                     std::ostream& out, std::ostream& err);

}  // namespace sinklab::cluster
