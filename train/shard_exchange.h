#pragma once
// The ranks of one data-parallel training (`sinklab train --mpi`, docs/cluster.md). Every rank draws
// the whole batch and computes a contiguous run of its shards; the running sum of the shard gradients
// travels from rank 0 to the last rank in shard order, and the last rank gives the total to every rank
// (train/sharded_gradient.h). Over MPI in cluster/mpi_shard_exchange.h.
#include <span>
#include <stdexcept>
#include <string>

namespace sinklab {

class ShardExchange {
 public:
  virtual ~ShardExchange() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // The running sum from rank() - 1: the gradient and the step's numbers.
  virtual void receive_running_sum(std::span<float> gradient, std::span<double> numbers) = 0;
  // The running sum to rank() + 1.
  virtual void send_running_sum(std::span<const float> gradient, std::span<const double> numbers) = 0;
  // The last rank's total to every rank: the last rank passes it, the others receive it in place.
  virtual void share_total(std::span<float> gradient, std::span<double> numbers) = 0;
};

// A rank stopped answering (it died, or the job is being stopped): training cannot go on. The run
// resumes from its last checkpoint.
class RankLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sinklab
