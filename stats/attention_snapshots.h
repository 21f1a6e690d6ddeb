#pragma once
// Attention snapshots over training (docs/analysis.md, "attention_snapshots.npz"): at chosen steps,
// every (layer, head)'s mean attention map over the evaluation inputs and evaluation input 0's own map.
// A snapshot keeps at most kSnapshotFullSide positions per axis: every position up to T = 128; for
// longer rows the first and last kSnapshotEdge positions in full and the middle pooled into
// kSnapshotMiddleBins bins. A pooled cell (row bin i, column bin j) is the mean over the queries of
// bin i of their total weight on the keys of bin j, so every stored row still sums to its rows' mass
// (1 for softmax) and the BOS column (key 0) is always exact.
// The file: run_files/attention_snapshot_file.h; when the trainer takes them: train/trainer.cpp.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/observe/attention_block_layout.h"
#include "core/observe/attention_observer.h"

namespace sinklab {

class AttentionSnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kSnapshotFullSide = 128;    // up to this T every position is kept
inline constexpr int kSnapshotEdge = 16;         // beyond it: the first and last 16 positions in full ...
inline constexpr int kSnapshotMiddleBins = 96;   // ... and the middle T - 32 positions in 96 bins

// The first original position of each stored row (= column) for sequence length T: 0 .. T-1 up to
// T = kSnapshotFullSide, else 0..15, 16 + floor(b (T - 32) / 96) for b = 0..95, T-16 .. T-1. Stored
// position i covers original positions positions[i] .. positions[i + 1] - 1 (the last one up to T - 1).
std::vector<int32_t> snapshot_positions(int seq_len);

// Mean and first-input maps of every (layer, head), pooled as above; the sums are kept in double.
class SnapshotMapAccumulator {
 public:
  SnapshotMapAccumulator(int layers, int heads, int seq_len);

  // probs: [batch, heads, T, T] blocks placed as `layout` says, each [T, T] row-major. The first
  // sample added to a layer after reset() is that layer's example.
  void add(int layer, const float* probs, int batch, const AttentionBlockLayout& layout);

  // [layers, heads, side, side] row-major. Throw when a layer has no samples.
  std::vector<float> mean() const;
  std::vector<float> example() const;

  int layers() const { return layers_; }
  int heads() const { return heads_; }
  int seq_len() const { return seq_len_; }
  int side() const { return side_; }
  int64_t samples(int layer) const;
  const std::vector<int32_t>& positions() const { return positions_; }

  void reset();

 private:
  void check_samples() const;
  int layers_, heads_, seq_len_, side_;
  std::vector<int32_t> positions_;
  std::vector<int32_t> bin_of_;     // [T]: the stored position each original position falls in
  std::vector<double> row_scale_;   // [side]: 1 / the number of queries in each row bin
  std::vector<double> sum_, first_;  // [layers, heads, side, side]
  std::vector<int64_t> samples_;     // per layer
};

// The thinning schedule of analysis.snapshot_every / snapshot_limit: snapshots are taken at multiples
// of an interval that starts at `every`; when `limit` are kept, those not at a multiple of twice the
// interval are dropped and the interval doubles. So after the steps 0 .. steps_done - 1 the kept steps
// are exactly the multiples of this function's result below steps_done, fewer than `limit` of them
// (limit 0: never thinned). A resumed run recomputes its interval with it.
int64_t snapshot_interval(int64_t every, int64_t limit, int64_t steps_done);

// Feeds an accumulator from the model's attention layers while registered.
class SnapshotObserver final : public AttentionObserver {
 public:
  explicit SnapshotObserver(SnapshotMapAccumulator& maps) : maps_(&maps) {}
  void on_attention(const AttentionView& v) override {
    maps_->add(v.layer, v.weights, static_cast<int>(v.batch), v.layout);
  }

 private:
  SnapshotMapAccumulator* maps_;
};

// The snapshots of one run, in step order. mean and example hold one [layers, heads, side, side]
// block per step; roles and tokens describe evaluation input 0 (tokens empty for vector tasks).
struct AttentionSnapshots {
  int layers = 0, heads = 0, seq_len = 0;
  std::vector<int32_t> positions;  // snapshot_positions(seq_len): the stored rows and columns
  std::vector<uint8_t> roles;      // [seq_len], core/observe/position_roles.h flags
  std::vector<int32_t> tokens;     // [seq_len] input ids of token tasks, else empty
  std::vector<std::string> token_labels;  // [seq_len] each token's text (Task::token_label), or empty
  std::vector<int64_t> steps;
  std::vector<float> mean, example;

  size_t side() const { return positions.size(); }
  size_t block() const { return static_cast<size_t>(layers) * static_cast<size_t>(heads) * side() * side(); }
  // Appends the accumulator's maps as step `step` (which must be later than every kept step).
  void append(int64_t step, const SnapshotMapAccumulator& maps);
  // Drops every snapshot of a step >= `step` (a resumed run continues from its checkpoint's step).
  void keep_before(int64_t step);
  // Drops every snapshot whose step is not a multiple of `interval` (thinning, see snapshot_interval).
  void keep_multiples_of(int64_t interval);
  bool operator==(const AttentionSnapshots&) const = default;
};

}  // namespace sinklab
