#pragma once
// train/shard_exchange.h over MPI_COMM_WORLD: the running sum of shard gradients from rank to rank, then
// the total broadcast from the last rank. Every wait polls (nonblocking MPI), so a rank that died does
// not hang the others forever: waiting ends with RankLost after `peer_timeout_seconds` of silence, or
// a few seconds after a stop signal (mpirun's SIGTERM when a rank died) while the message still has
// not come.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "train/shard_exchange.h"

namespace sinklab::cluster {

class MpiShardExchange : public ShardExchange {
 public:
  MpiShardExchange(int rank, int ranks, int peer_timeout_seconds);
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  void receive_running_sum(std::span<float> gradient, std::span<double> numbers) override;
  void send_running_sum(std::span<const float> gradient, std::span<const double> numbers) override;
  void share_total(std::span<float> gradient, std::span<double> numbers) override;
  // Printed to stderr, once, when a stop signal comes while this rank waits: mpirun ends every rank
  // moments after one died, often before RankLost could be reported, so rank 0 says at once how to resume.
  void set_signal_notice(std::string text) { signal_notice_ = std::move(text); }

 private:
  // Waits for requests_; `what` and `peer` name the message for RankLost (text built only then: a step
  // allocates nothing here).
  void wait(const char* what, int peer);
  // One request per gradient chunk and one for the numbers; reused every step.
  MPI_Request* next_request();
  std::vector<MPI_Request> requests_;
  int rank_, ranks_, peer_timeout_seconds_;
  std::string signal_notice_;
  bool noticed_ = false;
};

}  // namespace sinklab::cluster
