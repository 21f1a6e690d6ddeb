#pragma once
// Mean and standard deviation of every (layer, head) attention map [T, T] over evaluation inputs,
// plus the first input's own map (the paper's multi-layer figures show one input). Welford's update
// in double keeps the std accurate when a sink row is ~1 with a tiny spread.
// Their files in a run folder: run_files/attention_map_files.h.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/observe/attention_block_layout.h"

namespace sinklab {

class AttentionMapsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AttentionMapAccumulator {
 public:
  AttentionMapAccumulator(int layers, int heads, int seq_len);

  // probs: [batch, heads, T, T] blocks placed as `layout` says (batch-major when omitted), each
  // [T, T] row-major. The first sample ever added to a layer becomes sample0.
  void add(int layer, const float* probs, int batch);
  void add(int layer, const float* probs, int batch, const AttentionBlockLayout& layout);

  // [T * T] row-major. stddev is the sample standard deviation (n - 1 in the denominator, as
  // torch.std), 0 when only one input was seen. Throw when the layer has no samples.
  std::vector<float> mean(int layer, int head) const;
  std::vector<float> stddev(int layer, int head) const;
  std::vector<float> sample0(int layer, int head) const;

  int64_t samples(int layer) const;
  int layers() const { return layers_; }
  int heads() const { return heads_; }
  int seq_len() const { return seq_len_; }

  void reset();

 private:
  void check(int layer, int head) const;
  size_t offset(int layer, int head) const;
  int layers_, heads_, seq_len_;
  std::vector<double> mean_, m2_;  // Welford state, [layers, heads, T, T]
  std::vector<float> sample0_;
  std::vector<int64_t> samples_;   // per layer
};

}  // namespace sinklab
