#pragma once
// `sinklab train --mpi` (docs/cluster.md): one run whose batch shards (train.batch_shards) are spread
// over the ranks of an MPI job. Rank 0 checks the config and the run folder, trains its shards, logs,
// evaluates and writes, exactly as `sinklab train`; just before the first step it hands the resolved
// config and the checkpoint to resume from to the other ranks, which train their shards and write
// nothing. The weights are bit-identical to one process with the same config (train/sharded_gradient.h).
#include <optional>

#include "train/train_in_folder.h"

namespace sinklab::cluster {

// Rank 0: the run, as train_in_folder returns it; the other ranks: nothing. Throws what
// train_in_folder throws (on rank 0; the other ranks are then told to stop), and RankLost, saying how
// to resume, when a rank is lost during training.
std::optional<TrainedRun> train_on_ranks(TrainRequest request, int rank, int ranks, int peer_timeout_seconds);

}  // namespace sinklab::cluster
