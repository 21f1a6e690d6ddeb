#pragma once
// Per-(layer, head) attention-sink statistics of the trigger-conditional task
// (shared/papers/trigger-sinks.md section 6, normalizer-zoo.md "Sink metrics"; definitions in
// docs/analysis.md). Input is one layer's post-normalizer probabilities A, one [T, T] row-major block
// per (sample, head) placed as an AttentionBlockLayout says, with masked entries (k > i) equal to 0, plus the trigger position j of every sample.
//
// Non-trigger rows are i in 1..T-1 with i != j; row 0 (BOS) is excluded because a softmax BOS row
// is trivially 1. Every per-row quantity is averaged over all (sample, row) pairs, every
// trigger-row quantity over samples; bos_mass_nontrigger_min is a true minimum.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/observe/attention_block_layout.h"

namespace sinklab {

// Raised for inputs the caller got wrong (bad shape arguments, trigger out of range, no data).
class SinkStatisticsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct HeadSinkStats {
  int layer = 0, head = 0;
  double bos_mass_nontrigger_mean = 0.0;     // A[i,0] over non-trigger rows
  double bos_mass_nontrigger_min = 0.0;      // smallest A[i,0] seen on a non-trigger row
  double mass_nontrigger_mean = 0.0;         // row sums (1 for softmax; free for relu)
  double nonbos_mass_nontrigger_mean = 0.0;  // row sum minus A[i,0]
  double trigger_bos = 0.0;                  // A[j,0]
  double trigger_keys_mean = 0.0;            // mean of A[j,1..j]
  double trigger_keys_max_deviation = 0.0;   // max over k in 1..j of |A[j,k] - 1/j|
  double sink_score = 0.0;    // alpha_0 (Gu et al.): mean over all rows i >= 0 of A[i,0] / rowsum_i
  bool sink_head = false;     // sink_score > eps
  double entropy_nontrigger = 0.0;  // -sum p log p with p = A / rowsum (0 for an all-zero row)
};

// Sums statistics over batches (for example the 1,000 evaluation inputs fed in chunks), then
// finish() turns the sums into means. Cheap enough to run on every logged training batch.
class SinkStatisticsAccumulator {
 public:
  // seq_len >= 3 so that at least one non-trigger row exists; eps is the sink-head threshold.
  SinkStatisticsAccumulator(int layers, int heads, int seq_len, double eps);

  // probs: [batch, heads, T, T] blocks placed as `layout` says (batch-major when omitted);
  // trigger: [batch], each in 1..T-1.
  void add(int layer, const float* probs, int batch, const int32_t* trigger);
  void add(int layer, const float* probs, int batch, const int32_t* trigger, const AttentionBlockLayout& layout);

  // Layer-major order (layer 0 head 0, layer 0 head 1, ...). Throws when a layer received no samples.
  std::vector<HeadSinkStats> finish() const;
  void reset();

  int layers() const { return layers_; }
  int heads() const { return heads_; }
  int seq_len() const { return seq_len_; }
  double eps() const { return eps_; }
  int64_t samples(int layer) const;  // samples added to this layer since the last reset

 private:
  struct Sums {  // one per (layer, head)
    double bos_nontrigger = 0.0, bos_nontrigger_min = 0.0, mass_nontrigger = 0.0;
    double entropy_nontrigger = 0.0, trigger_bos = 0.0, trigger_keys_mean = 0.0;
    double trigger_keys_max_deviation = 0.0, sink_score = 0.0;
  };
  int layers_, heads_, seq_len_;
  double eps_;
  std::vector<Sums> sums_;
  std::vector<int64_t> samples_;  // per layer
};

// alpha_0 of uniform causal attention: (1/T) * sum_{i=0..T-1} 1/(i+1) = H_T / T (0.2113 at T = 16).
double uniform_causal_baseline(int seq_len);

// Fraction of heads with sink_head set. Throws on an empty list (the rate is undefined).
double sink_rate(const std::vector<HeadSinkStats>& heads);

}  // namespace sinklab
