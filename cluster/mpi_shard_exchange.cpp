#include "cluster/mpi_shard_exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "train/interrupt.h"

namespace sinklab::cluster {
namespace {

constexpr int kGradientTag = 40;  // the running sum's floats, in chunks
constexpr int kNumbersTag = 41;   // its numbers (train/sharded_gradient.h)
constexpr size_t kChunkFloats = size_t{1} << 28;  // 1 GiB: MPI counts are ints
// After a stop signal, how long a rank still waits for a message that is on its way (the sender
// finishes its shards first); mpirun ends the job's ranks soon after one died.
constexpr int kAfterSignalSeconds = 10;

// Calls post(offset, count) for each chunk of n floats (one empty chunk when n is 0).
template <typename Post>
void for_each_chunk(size_t n, Post post) {
  size_t at = 0;
  do {
    post(at, static_cast<int>(std::min(kChunkFloats, n - at)));
    at += kChunkFloats;
  } while (at < n);
}

}  // namespace

MpiShardExchange::MpiShardExchange(int rank, int ranks, int peer_timeout_seconds)
    : rank_(rank), ranks_(ranks), peer_timeout_seconds_(peer_timeout_seconds) {
  requests_.reserve(64);  // a gradient of up to 63 GiB without a reallocation
}

MPI_Request* MpiShardExchange::next_request() {
  requests_.push_back(MPI_REQUEST_NULL);
  return &requests_.back();
}

void MpiShardExchange::wait(const char* what, int peer) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  std::optional<Clock::time_point> signalled;
  for (int spins = 0;; ++spins) {
    int done = 0;
    const auto message = [&] { return std::string(what) + " " + std::to_string(peer); };
    if (MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      throw RankLost("MPI reported an error while waiting for " + message());
    if (done) {
      requests_.clear();
      return;
    }
    const auto now = Clock::now();
    if (interrupt_requested() && !signalled) {
      signalled = now;
      if (!signal_notice_.empty() && !noticed_) {
        std::fprintf(stderr, "%s\n", signal_notice_.c_str());
        std::fflush(stderr);
        noticed_ = true;
      }
    }
    const auto waited = [&](Clock::time_point since) { return std::chrono::duration<double>(now - since).count(); };
    if (signalled && waited(*signalled) > kAfterSignalSeconds)
      throw RankLost("a stop signal came while waiting for " + message() + ", which did not come within " +
                     std::to_string(kAfterSignalSeconds) + " s (a rank died or the job is being stopped)");
    if (waited(started) > peer_timeout_seconds_)
      throw RankLost("no " + message() + " for " + std::to_string(peer_timeout_seconds_) +
                     " s (--peer-timeout): a rank died or hangs");
    // Spin at first (a step's messages come within microseconds of each other), then yield the core.
    if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void MpiShardExchange::receive_running_sum(std::span<float> gradient, std::span<double> numbers) {
  for_each_chunk(gradient.size(), [&](size_t at, int count) {
    MPI_Irecv(gradient.data() + at, count, MPI_FLOAT, rank_ - 1, kGradientTag, MPI_COMM_WORLD, next_request());
  });
  MPI_Irecv(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, rank_ - 1, kNumbersTag, MPI_COMM_WORLD,
            next_request());
  wait("the gradient sum of rank", rank_ - 1);
}

void MpiShardExchange::send_running_sum(std::span<const float> gradient, std::span<const double> numbers) {
  for_each_chunk(gradient.size(), [&](size_t at, int count) {
    MPI_Isend(gradient.data() + at, count, MPI_FLOAT, rank_ + 1, kGradientTag, MPI_COMM_WORLD, next_request());
  });
  MPI_Isend(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, rank_ + 1, kNumbersTag, MPI_COMM_WORLD,
            next_request());
  wait("the gradient sum to be taken by rank", rank_ + 1);
}

void MpiShardExchange::share_total(std::span<float> gradient, std::span<double> numbers) {
  const int root = ranks_ - 1;
  for_each_chunk(gradient.size(), [&](size_t at, int count) {
    MPI_Ibcast(gradient.data() + at, count, MPI_FLOAT, root, MPI_COMM_WORLD, next_request());
  });
  MPI_Ibcast(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, root, MPI_COMM_WORLD, next_request());
  wait(rank_ == root ? "the other ranks to take the step's gradient from rank" : "the step's gradient from rank", root);
}

}  // namespace sinklab::cluster
