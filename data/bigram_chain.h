#pragma once
// The byte-level Markov chain of a text corpus, as the bigram_backcopy task samples it
// (data/bigram_backcopy_task.h): unigram marginal and bigram conditional from counts over the corpus,
// the k most frequent bytes as triggers, and the entropy of each conditional.
//
// Token ids are those of CharVocabulary (data/text_corpus.h): BOS = 0, then the distinct bytes in
// ascending order. Counts: marginal(c) = occurrences of c / corpus length; conditional(c' | c) = number of
// adjacent pairs (c, c') / number of pairs starting with c. A byte that starts no pair (it occurs only as
// the last byte of the file) has an empty bigram row: its conditional is defined as the marginal, so
// the chain never stops. Triggers: the k bytes with the largest counts, ties broken by the smaller byte
// value. Sampling draws an integer below a row's total count and looks it up in precomputed cumulative
// count tables (exact, no floating point, no allocation).
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "data/text_corpus.h"

namespace sinklab {

class BigramChain {
 public:
  // Throws TaskError naming task.triggers when fewer than triggers + 1 distinct bytes exist (position 1
  // needs a byte that is not a trigger), and task.triggers when triggers < 1.
  BigramChain(std::string_view text, int triggers);

  const CharVocabulary& vocabulary() const { return vocabulary_; }
  int vocab_size() const { return vocabulary_.size(); }  // BOS included

  // ids in 1 .. vocab_size() - 1
  double marginal(int32_t id) const;
  double conditional(int32_t from, int32_t to) const;  // of the row actually sampled (empty rows: the marginal)
  bool bigram_observed(int32_t from, int32_t to) const { return pair_count(from, to) > 0; }
  bool row_empty(int32_t from) const { return row_total_[static_cast<size_t>(from)] == 0; }
  double row_entropy(int32_t from) const { return row_entropy_[static_cast<size_t>(from)]; }  // nats

  const std::vector<int32_t>& triggers() const { return triggers_; }  // most frequent first
  bool is_trigger(int32_t id) const { return trigger_flag_[static_cast<size_t>(id)] != 0; }

  // Position 1 of a sample: the marginal with the triggers removed and renormalized.
  int32_t sample_first(Rng& rng) const { return draw(first_cumulative_.data(), first_total_, rng); }
  // The next id after `from` (1 .. vocab_size() - 1) by the conditional.
  int32_t sample_next(int32_t from, Rng& rng) const;

 private:
  uint64_t pair_count(int32_t from, int32_t to) const;
  int32_t draw(const uint64_t* cumulative, uint64_t total, Rng& rng) const;

  CharVocabulary vocabulary_;
  int n_;  // distinct bytes
  std::vector<uint64_t> unigram_;            // [n + 1], index = id (0 unused)
  std::vector<uint64_t> pairs_;              // [(n + 1) * (n + 1)], from-major
  std::vector<uint64_t> row_total_;          // [n + 1]
  std::vector<uint64_t> cumulative_;         // [(n + 1) * n]: row `from`, entry k = count of ids 1..k+1
  std::vector<uint64_t> first_cumulative_;   // [n]
  uint64_t first_total_ = 0, unigram_total_ = 0;
  std::vector<double> row_entropy_;          // [n + 1]
  std::vector<int32_t> triggers_;
  std::vector<uint8_t> trigger_flag_;        // [n + 1]
};

}  // namespace sinklab
