#pragma once
// Mean and standard deviation of every (layer, head) attention map [T, T] over evaluation inputs,
// plus the first input's own map (the paper's multi-layer figures show one input). Welford's update
// in double keeps the std accurate when a sink row is ~1 with a tiny spread.
//
// Run-directory files: <dir>/layer{l}_head{h}_{mean,std,sample0}.npy, float32 [T, T] each.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/observe/attention_block_layout.h"

namespace sinklab {

class AttentionMapsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AttentionMapKind { mean, stddev, sample0 };  // files: _mean, _std, _sample0

// "mean", "std" or "sample0".
const char* attention_map_kind_name(AttentionMapKind kind);

// <dir>/layer{l}_head{h}_{kind}.npy
std::filesystem::path attention_map_path(const std::filesystem::path& dir, int layer, int head, AttentionMapKind kind);

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

  // Writes the three .npy files of every (layer, head) into dir (created if missing).
  void write(const std::filesystem::path& dir) const;
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
