#include "cluster/mpi_compare.h"

#include "cluster/mpi_coordinator.h"
#include "cluster/mpi_worker.h"

namespace sinklab::cluster {

int compare_sweep_mpi(const sweep::CompareOptions& options, const ClusterOptions& cluster, int rank, int ranks,
                      std::ostream& out, std::ostream& err) {
  if (rank != 0) return run_worker(cluster, err);
  return coordinate_sweep(options, cluster, ranks, out, err);
}

}  // namespace sinklab::cluster
