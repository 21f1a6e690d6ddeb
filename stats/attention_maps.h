#pragma once
// Mean and standard deviation of every (layer, head) attention map [T, T] over evaluation inputs,
// plus the first input's own map (the paper's multi-layer figures show one input). Welford's update
// in double keeps the std accurate when a sink row is ~1 with a tiny spread.
// Long rows keep a grid: queries and keys at positions 0, s, 2s, ... with s = attention_map_stride(T),
// so a map has at most kMaxMapSide x kMaxMapSide cells whatever T is (the full state of 4 layers x 8
// heads at T = 2048 would be 2.7 GB). Every kept cell is an exact weight; key 0, the BOS sink column,
// is always kept. Up to T = kMaxMapSide the map is the whole [T, T].
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

inline constexpr int kMaxMapSide = 256;

// ceil(T / kMaxMapSide): 1 up to T = kMaxMapSide.
constexpr int attention_map_stride(int seq_len) {
  return seq_len <= kMaxMapSide ? 1 : (seq_len + kMaxMapSide - 1) / kMaxMapSide;
}
// Positions a map keeps per axis: ceil(T / stride).
constexpr int attention_map_side(int seq_len) {
  return (seq_len + attention_map_stride(seq_len) - 1) / attention_map_stride(seq_len);
}

class AttentionMapAccumulator {
 public:
  AttentionMapAccumulator(int layers, int heads, int seq_len);

  // probs: [batch, heads, T, T] blocks placed as `layout` says (batch-major when omitted), each
  // [T, T] row-major. The first sample ever added to a layer becomes sample0.
  void add(int layer, const float* probs, int batch);
  void add(int layer, const float* probs, int batch, const AttentionBlockLayout& layout);

  // [side * side] row-major, cell (r, c) = query r * stride, key c * stride. stddev is the sample standard deviation (n
  // - 1 in the denominator, as torch.std), 0 when only one input was seen. Throw when the layer has no samples.
  std::vector<float> mean(int layer, int head) const;
  std::vector<float> stddev(int layer, int head) const;
  std::vector<float> sample0(int layer, int head) const;

  int64_t samples(int layer) const;
  int layers() const { return layers_; }
  int heads() const { return heads_; }
  int seq_len() const { return seq_len_; }
  int stride() const { return stride_; }
  int side() const { return side_; }  // kept positions per axis

  void reset();

 private:
  void check(int layer, int head) const;
  size_t offset(int layer, int head) const;
  int layers_, heads_, seq_len_, stride_, side_;
  std::vector<double> mean_, m2_;  // Welford state, [layers, heads, side, side]
  std::vector<float> sample0_;
  std::vector<int64_t> samples_;   // per layer
};

}  // namespace sinklab
