#pragma once
// One step's gradient as the sum of its batch shards' gradients (train.batch_shards), in a fixed order
// that does not depend on how many processes compute them: left to right over shards,
//   total = (((g_0 + g_1) + g_2) + ... + g_{S-1}),   gradient = total * (1 / S),
// each g_s the gradient of shard s's mean loss, computed from zero. So a run over R ranks (each a
// contiguous run of S / R shards, train/shard_exchange.h) is bit-identical to one process with the same
// shards. A rank after the first keeps its shards' gradients until the running sum of the shards before
// them arrives: (S / R) x parameters floats, allocated once.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "train/shard_exchange.h"

namespace sinklab {

// What a shard's forward pass says about its batch, and their sum over the shards so far.
struct ShardScore {
  double loss = 0;           // the shard's mean loss; summed over shards
  double max_abs_error = 0;  // mse tasks; the largest over shards
  double scored = 0;         // cross-entropy tasks: positions with a target, summed (exact in a double)
  double correct = 0;
  double interrupt = 0;  // 1 when a rank saw a stop signal during the step: every rank stops after it
};

struct StepTotals {
  double loss = 0;  // the mean of the shards' mean losses
  ShardScore sum;   // loss summed, max_abs_error the largest, counts summed, interrupt if any rank saw one
};

class ShardedGradient {
 public:
  // `exchange` null: one process computes every shard. Throws std::invalid_argument when the ranks do
  // not divide the shards.
  ShardedGradient(size_t parameters, int shards, ShardExchange* exchange);

  int shards() const { return shards_; }
  int first_shard() const { return first_; }    // this process's shards: first_shard() ..
  int local_shards() const { return local_; }   // .. first_shard() + local_shards() - 1
  bool primary() const { return rank_ == 0; }   // the rank that logs, evaluates and writes

  // After the backward of local shard `local` (0 .. local_shards() - 1, in order) left its gradient,
  // computed from zero, in `gradient`.
  void add_shard(int local, std::span<const float> gradient, const ShardScore& score);
  // Completes the sum over every rank and writes the mean gradient into `gradient`. `interrupted`: this
  // rank saw a stop signal; the totals say whether any did.
  StepTotals finish(std::span<float> gradient, bool interrupted);

 private:
  static constexpr int kNumbers = 5;
  void fold(std::span<const float> gradient, const ShardScore& score);

  int shards_, first_, local_, rank_ = 0, ranks_ = 1;
  ShardExchange* exchange_;
  std::vector<float> sum_;                // the running sum over shards 0 .. s
  std::vector<std::vector<float>> kept_;  // ranks after the first: each local shard's gradient
  std::vector<ShardScore> kept_scores_;
  ShardScore score_sum_;
  bool started_ = false;  // sum_ holds at least shard 0
};

}  // namespace sinklab
