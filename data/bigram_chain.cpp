#include "data/bigram_chain.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "data/task.h"

namespace sinklab {

BigramChain::BigramChain(std::string_view text, int triggers) : vocabulary_(text), n_(vocabulary_.size() - 1) {
  if (triggers < 1)
    throw TaskError("bigram_backcopy: triggers must be >= 1, got " + std::to_string(triggers), {"task.triggers"});
  if (n_ < triggers + 1)
    throw TaskError("bigram_backcopy: the corpus has " + std::to_string(n_) + " distinct bytes, but triggers = " +
                        std::to_string(triggers) + " needs at least " + std::to_string(triggers + 1) +
                        " (one byte that is not a trigger starts every sample)",
                    {"task.triggers", "task.corpus"});
  const auto rows = static_cast<size_t>(n_ + 1);
  unigram_.assign(rows, 0);
  pairs_.assign(rows * rows, 0);
  row_total_.assign(rows, 0);
  int32_t previous = -1;
  for (const char c : text) {
    const int32_t id = vocabulary_.id_of(static_cast<unsigned char>(c));
    ++unigram_[static_cast<size_t>(id)];
    if (previous >= 0) {
      ++pairs_[static_cast<size_t>(previous) * rows + static_cast<size_t>(id)];
      ++row_total_[static_cast<size_t>(previous)];
    }
    previous = id;
  }
  unigram_total_ = text.size();

  // Triggers: largest count first, ties by the smaller byte (= the smaller id).
  std::vector<int32_t> order(static_cast<size_t>(n_));
  std::iota(order.begin(), order.end(), 1);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return unigram_[static_cast<size_t>(a)] > unigram_[static_cast<size_t>(b)];
  });
  triggers_.assign(order.begin(), order.begin() + triggers);
  trigger_flag_.assign(rows, 0);
  for (const int32_t t : triggers_) trigger_flag_[static_cast<size_t>(t)] = 1;

  // Cumulative tables; an empty row samples the marginal.
  const auto n = static_cast<size_t>(n_);
  cumulative_.assign(rows * n, 0);
  row_entropy_.assign(rows, 0.0);
  for (size_t from = 1; from < rows; ++from) {
    const bool empty = row_total_[from] == 0;
    const uint64_t* counts = empty ? unigram_.data() : pairs_.data() + from * rows;
    const double total = static_cast<double>(empty ? unigram_total_ : row_total_[from]);
    uint64_t running = 0;
    double entropy = 0.0;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t c = counts[k + 1];
      running += c;
      cumulative_[from * n + k] = running;
      if (c > 0) {
        const double p = static_cast<double>(c) / total;
        entropy -= p * std::log(p);
      }
    }
    row_entropy_[from] = entropy;
  }
  first_cumulative_.assign(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const auto id = k + 1;
    first_total_ += trigger_flag_[id] ? 0 : unigram_[id];
    first_cumulative_[k] = first_total_;
  }
}

double BigramChain::marginal(int32_t id) const {
  return static_cast<double>(unigram_[static_cast<size_t>(id)]) / static_cast<double>(unigram_total_);
}

uint64_t BigramChain::pair_count(int32_t from, int32_t to) const {
  return pairs_[static_cast<size_t>(from) * static_cast<size_t>(n_ + 1) + static_cast<size_t>(to)];
}

double BigramChain::conditional(int32_t from, int32_t to) const {
  if (row_empty(from)) return marginal(to);
  return static_cast<double>(pair_count(from, to)) / static_cast<double>(row_total_[static_cast<size_t>(from)]);
}

int32_t BigramChain::draw(const uint64_t* cumulative, uint64_t total, Rng& rng) const {
  const uint64_t u = rng.below(total);
  // The first entry whose running count exceeds u: ids with count 0 are never chosen.
  const uint64_t* at = std::upper_bound(cumulative, cumulative + n_, u);
  return static_cast<int32_t>(at - cumulative) + 1;
}

int32_t BigramChain::sample_next(int32_t from, Rng& rng) const {
  const auto f = static_cast<size_t>(from);
  const uint64_t total = row_total_[f] == 0 ? unigram_total_ : row_total_[f];
  return draw(cumulative_.data() + f * static_cast<size_t>(n_), total, rng);
}

}  // namespace sinklab
