#include "train/sharded_gradient.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace sinklab {

ShardedGradient::ShardedGradient(size_t parameters, int shards, ShardExchange* exchange)
    : shards_(shards), first_(0), local_(shards), exchange_(exchange), sum_(parameters) {
  if (shards < 1) throw std::invalid_argument("batch shards must be at least 1, got " + std::to_string(shards));
  if (exchange_) {
    rank_ = exchange_->rank();
    ranks_ = exchange_->ranks();
    if (shards % ranks_ != 0)
      throw std::invalid_argument("train.batch_shards (" + std::to_string(shards) + ") must be a multiple of the " +
                                  std::to_string(ranks_) +
                                  " MPI ranks, so each rank computes the same number of shards: "
                                  "set it with --set train.batch_shards=N (it must also divide train.batch_size)");
    local_ = shards / ranks_;
    first_ = rank_ * local_;
  }
  if (rank_ > 0) {
    kept_.assign(static_cast<size_t>(local_), std::vector<float>(parameters));
    kept_scores_.resize(static_cast<size_t>(local_));
  }
}

void ShardedGradient::fold(std::span<const float> gradient, const ShardScore& score) {
  if (!started_) {
    std::copy(gradient.begin(), gradient.end(), sum_.begin());
    score_sum_ = score;
    started_ = true;
    return;
  }
  float* const sum = sum_.data();
  const float* const g = gradient.data();
  const size_t n = sum_.size();
  for (size_t i = 0; i < n; ++i) sum[i] += g[i];  // element by element: the order is the shards'
  score_sum_.loss += score.loss;
  score_sum_.max_abs_error = std::max(score_sum_.max_abs_error, score.max_abs_error);
  score_sum_.scored += score.scored;
  score_sum_.correct += score.correct;
  score_sum_.interrupt = std::max(score_sum_.interrupt, score.interrupt);
}

void ShardedGradient::add_shard(int local, std::span<const float> gradient, const ShardScore& score) {
  if (gradient.size() != sum_.size() || local < 0 || local >= local_)
    throw std::logic_error("ShardedGradient::add_shard: shard " + std::to_string(local) + " of " +
                           std::to_string(local_) + " with " + std::to_string(gradient.size()) + " floats, expected " +
                           std::to_string(sum_.size()));
  if (rank_ == 0) {
    fold(gradient, score);  // nothing comes before rank 0's shards: sum as they come
    return;
  }
  std::copy(gradient.begin(), gradient.end(), kept_[static_cast<size_t>(local)].begin());
  kept_scores_[static_cast<size_t>(local)] = score;
}

namespace {

std::array<double, 5> numbers_of(const ShardScore& s) {
  return {s.loss, s.max_abs_error, s.scored, s.correct, s.interrupt};
}
ShardScore score_of(const std::array<double, 5>& n) { return {n[0], n[1], n[2], n[3], n[4]}; }

}  // namespace

StepTotals ShardedGradient::finish(std::span<float> gradient, bool interrupted) {
  const double here = interrupted ? 1.0 : 0.0;
  std::array<double, kNumbers> numbers{};
  if (rank_ == 0) {
    score_sum_.interrupt = std::max(score_sum_.interrupt, here);
    if (ranks_ > 1) {
      numbers = numbers_of(score_sum_);
      exchange_->send_running_sum(sum_, numbers);
    }
  } else {
    exchange_->receive_running_sum(sum_, numbers);
    score_sum_ = score_of(numbers);
    started_ = true;
    for (int j = 0; j < local_; ++j) fold(kept_[static_cast<size_t>(j)], kept_scores_[static_cast<size_t>(j)]);
    score_sum_.interrupt = std::max(score_sum_.interrupt, here);
    if (rank_ + 1 < ranks_) exchange_->send_running_sum(sum_, numbers_of(score_sum_));
  }
  if (ranks_ > 1) {
    numbers = numbers_of(score_sum_);
    exchange_->share_total(sum_, numbers);
    score_sum_ = score_of(numbers);
  }
  if (gradient.size() != sum_.size())
    throw std::logic_error("ShardedGradient::finish: " + std::to_string(gradient.size()) + " floats, expected " +
                           std::to_string(sum_.size()));
  const float scale = 1.0f / static_cast<float>(shards_);
  for (size_t i = 0; i < sum_.size(); ++i) gradient[i] = sum_[i] * scale;
  started_ = false;
  return {score_sum_.loss / shards_, score_sum_};
}

}  // namespace sinklab
