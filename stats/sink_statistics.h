#pragma once
// Accumulates the per-(layer, head) statistics of stats/head_statistics.h over batches. Input is one
// layer's post-normalizer probabilities A, one [T, T] row-major block per (sample, head) placed as an
// AttentionBlockLayout says, with masked entries (k > i) equal to 0, plus one role byte per position
// and sample (core/observe/position_roles.h) that says which keys are sinks and which rows are no-op
// or active rows, plus the per-row facts attention computes besides A (RowFacts). Definitions:
// docs/analysis.md.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/observe/attention_block_layout.h"
#include "stats/head_statistics.h"

namespace sinklab {

// Raised for inputs the caller got wrong (bad shape arguments, unknown role bits, no data).
class SinkStatisticsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The per-row facts of one add() call, each [heads, batch, T] head-major (AttentionView::row_facts in
// core/observe/attention_observer.h); a null array leaves the statistics that read it null.
struct RowFacts {
  const float* virtual_mass = nullptr;   // mass row i sent to no key; NaN rows where undefined
  const float* gate = nullptr;           // output gate of row i
  const float* value_norms = nullptr;    // ||u_k||, u_k = W_O^h W_V^h x_k: what key k adds per unit weight
  const float* value_norms_v = nullptr;  // ||v_k||, v_k = W_V^h x_k
};

// Sums statistics over batches (for example the 1,000 evaluation inputs fed in chunks), then
// finish() turns the sums into means. Cheap enough to run on every logged training batch.
class SinkStatisticsAccumulator {
 public:
  // seq_len >= 3; eps is the sink-head threshold.
  SinkStatisticsAccumulator(int layers, int heads, int seq_len, double eps);

  // probs: [batch, heads, T, T] blocks placed as `layout` says (batch-major when omitted);
  // roles: [batch, T] flags of core/observe/position_roles.h. A role byte with unknown bits, or
  // flagged both no-op and active row, throws before anything is added. facts: the per-row arrays of
  // the same batch, [heads, batch, T] head-major whatever the layout of probs; without them the
  // statistics that read them are null.
  void add(int layer, const float* probs, int batch, const uint8_t* roles);
  void add(int layer, const float* probs, int batch, const uint8_t* roles, const AttentionBlockLayout& layout,
           const RowFacts& facts = {});

  // Layer-major order (layer 0 head 0, layer 0 head 1, ...). A statistic whose rows never occurred
  // is NaN; bos_mass_by_row has T entries (the onset steps are the trainer's). Throws when a layer
  // received no samples.
  std::vector<HeadSinkStats> finish() const;
  void reset();

  int layers() const { return layers_; }
  int heads() const { return heads_; }
  int seq_len() const { return seq_len_; }
  double eps() const { return eps_; }
  int64_t samples(int layer) const;  // samples added to this layer since the last reset

 private:
  struct Sums {  // one per (layer, head, statistic)
    double sum = 0.0;       // mean: sum of the row values; sample means: sum of per-sample means
    double minus = 0.0;     // non_sink_mass: the sink mass summed apart, subtracted at the end
    double sink = 0.0;      // above_eps: sum of per-sample means of the sink mass, not renormalized
    double min = std::numeric_limits<double>::infinity();  // min: the smallest row value
    int64_t count = 0;      // rows (or, for sample means, samples) summed
  };
  void check_roles(const uint8_t* roles, int batch) const;
  int layers_, heads_, seq_len_;
  double eps_;
  std::vector<Sums> sums_;          // [layers, heads, kHeadStatistics.size()]
  std::vector<double> row_sink_;    // [layers, heads, T]: sink mass of row i summed over samples
  std::vector<int64_t> samples_;    // per layer
};

// alpha_0 of uniform causal attention: (1/T) * sum_{i=0..T-1} 1/(i+1) = H_T / T (0.2113 at T = 16).
double uniform_causal_baseline(int seq_len);

// The sink-head rule (docs/analysis.md): the sink keys get more than eps of the rows' attention both
// as a share of each row (sink_score, Gu's alpha_0) and as mass (the same per-sample mean, not divided
// by the row mass). NaN (no rows) is not above eps.
bool is_sink_head(double sink_share_mean, double sink_mass_mean, double eps);

// Run files written before the rule read the sink mass too flagged a head on its share alone. The
// head's bos_mass_by_row (mean over samples of each row's sink mass, every row) holds the mass the
// rule reads, so the flag is recomputed from it; a head without it keeps its flag. Returns whether
// any flag changed.
bool apply_sink_head_rule(std::vector<HeadSinkStats>& heads, double eps);

// Fraction of heads with sink_head set (sink_score > eps on rows that spend mass, docs/analysis.md).
// Throws on an empty list (the rate is undefined).
double sink_rate(const std::vector<HeadSinkStats>& heads);

}  // namespace sinklab
