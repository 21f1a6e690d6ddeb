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

// (offset, count) of each chunk of n floats.
std::vector<std::pair<size_t, int>> chunks(size_t n) {
  std::vector<std::pair<size_t, int>> out;
  for (size_t at = 0; at < n; at += kChunkFloats) out.emplace_back(at, static_cast<int>(std::min(kChunkFloats, n - at)));
  if (out.empty()) out.emplace_back(0, 0);
  return out;
}

}  // namespace

MpiShardExchange::MpiShardExchange(int rank, int ranks, int peer_timeout_seconds)
    : rank_(rank), ranks_(ranks), peer_timeout_seconds_(peer_timeout_seconds) {}

void MpiShardExchange::wait(MPI_Request* requests, int count, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  std::optional<Clock::time_point> signalled;
  for (int spins = 0;; ++spins) {
    int done = 0;
    if (MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      throw RankLost("MPI reported an error while waiting for " + what);
    if (done) return;
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
      throw RankLost("a stop signal came while waiting for " + what + ", which did not come within " +
                     std::to_string(kAfterSignalSeconds) + " s (a rank died or the job is being stopped)");
    if (waited(started) > peer_timeout_seconds_)
      throw RankLost("no " + what + " for " + std::to_string(peer_timeout_seconds_) +
                     " s (--peer-timeout): a rank died or hangs");
    // Spin at first (a step's messages come within microseconds of each other), then yield the core.
    if (spins > 1000) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void MpiShardExchange::receive_running_sum(std::span<float> gradient, std::span<double> numbers) {
  std::vector<MPI_Request> requests;
  for (const auto& [at, count] : chunks(gradient.size())) {
    requests.emplace_back();
    MPI_Irecv(gradient.data() + at, count, MPI_FLOAT, rank_ - 1, kGradientTag, MPI_COMM_WORLD, &requests.back());
  }
  requests.emplace_back();
  MPI_Irecv(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, rank_ - 1, kNumbersTag, MPI_COMM_WORLD,
            &requests.back());
  wait(requests.data(), static_cast<int>(requests.size()), "the gradient sum of rank " + std::to_string(rank_ - 1));
}

void MpiShardExchange::send_running_sum(std::span<const float> gradient, std::span<const double> numbers) {
  std::vector<MPI_Request> requests;
  for (const auto& [at, count] : chunks(gradient.size())) {
    requests.emplace_back();
    MPI_Isend(gradient.data() + at, count, MPI_FLOAT, rank_ + 1, kGradientTag, MPI_COMM_WORLD, &requests.back());
  }
  requests.emplace_back();
  MPI_Isend(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, rank_ + 1, kNumbersTag, MPI_COMM_WORLD,
            &requests.back());
  wait(requests.data(), static_cast<int>(requests.size()), "rank " + std::to_string(rank_ + 1) + " to take the gradient sum");
}

void MpiShardExchange::share_total(std::span<float> gradient, std::span<double> numbers) {
  const int root = ranks_ - 1;
  std::vector<MPI_Request> requests;
  for (const auto& [at, count] : chunks(gradient.size())) {
    requests.emplace_back();
    MPI_Ibcast(gradient.data() + at, count, MPI_FLOAT, root, MPI_COMM_WORLD, &requests.back());
  }
  requests.emplace_back();
  MPI_Ibcast(numbers.data(), static_cast<int>(numbers.size()), MPI_DOUBLE, root, MPI_COMM_WORLD, &requests.back());
  wait(requests.data(), static_cast<int>(requests.size()),
       rank_ == root ? std::string("the other ranks to take the step's gradient") : "the step's gradient from rank " + std::to_string(root));
}

}  // namespace sinklab::cluster
