#pragma once
// train/shard_exchange.h between threads of one process, for tests: each rank is a thread with its own
// ThreadShardExchange over one shared Mailboxes. Messages are copied, as MPI copies them.
#include <condition_variable>
#include <map>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "train/shard_exchange.h"

namespace sinklab::testing {

class Mailboxes {
 public:
  explicit Mailboxes(int ranks) : ranks_(ranks) {}
  int ranks() const { return ranks_; }
  void put(int to, int from, std::vector<float> floats, std::vector<double> numbers) {
    std::lock_guard<std::mutex> lock(mutex_);
    boxes_[{to, from}].push_back({std::move(floats), std::move(numbers)});
    arrived_.notify_all();
  }
  std::pair<std::vector<float>, std::vector<double>> take(int to, int from) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto& box = boxes_[{to, from}];
    arrived_.wait(lock, [&] { return !box.empty(); });
    auto message = std::move(box.front());
    box.erase(box.begin());
    return message;
  }

 private:
  int ranks_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<std::pair<int, int>, std::vector<std::pair<std::vector<float>, std::vector<double>>>> boxes_;
};

class ThreadShardExchange : public ShardExchange {
 public:
  ThreadShardExchange(Mailboxes& boxes, int rank) : boxes_(boxes), rank_(rank) {}
  int rank() const override { return rank_; }
  int ranks() const override { return boxes_.ranks(); }
  void receive_running_sum(std::span<float> gradient, std::span<double> numbers) override {
    take_into(rank_ - 1, gradient, numbers);
  }
  void send_running_sum(std::span<const float> gradient, std::span<const double> numbers) override {
    boxes_.put(rank_ + 1, rank_, {gradient.begin(), gradient.end()}, {numbers.begin(), numbers.end()});
  }
  void share_total(std::span<float> gradient, std::span<double> numbers) override {
    const int root = ranks() - 1;
    if (rank_ != root) return take_into(root, gradient, numbers);
    for (int r = 0; r < root; ++r)
      boxes_.put(r, root, {gradient.begin(), gradient.end()}, {numbers.begin(), numbers.end()});
  }

 private:
  void take_into(int from, std::span<float> gradient, std::span<double> numbers) {
    auto [floats, doubles] = boxes_.take(rank_, from);
    std::copy(floats.begin(), floats.end(), gradient.begin());
    std::copy(doubles.begin(), doubles.end(), numbers.begin());
  }
  Mailboxes& boxes_;
  int rank_;
};

}  // namespace sinklab::testing
