#include "stats/attention_snapshots.h"

#include <algorithm>
#include <string>

namespace sinklab {

std::vector<int32_t> snapshot_positions(int seq_len) {
  if (seq_len < 1)
    throw AttentionSnapshotError("attention snapshots: seq_len must be >= 1 (got " + std::to_string(seq_len) + ")");
  std::vector<int32_t> p;
  if (seq_len <= kSnapshotFullSide) {
    for (int i = 0; i < seq_len; ++i) p.push_back(i);
    return p;
  }
  const int64_t middle = seq_len - 2 * kSnapshotEdge;  // > kSnapshotMiddleBins, so no bin is empty
  for (int i = 0; i < kSnapshotEdge; ++i) p.push_back(i);
  for (int b = 0; b < kSnapshotMiddleBins; ++b)
    p.push_back(static_cast<int32_t>(kSnapshotEdge + b * middle / kSnapshotMiddleBins));
  for (int i = seq_len - kSnapshotEdge; i < seq_len; ++i) p.push_back(i);
  return p;
}

SnapshotMapAccumulator::SnapshotMapAccumulator(int layers, int heads, int seq_len)
    : layers_(layers), heads_(heads), seq_len_(seq_len) {
  if (layers < 1 || heads < 1 || seq_len < 1)
    throw AttentionSnapshotError("attention snapshots: layers, heads and seq_len must be >= 1 (got " +
                                 std::to_string(layers) + ", " + std::to_string(heads) + ", " +
                                 std::to_string(seq_len) + ")");
  positions_ = snapshot_positions(seq_len);
  side_ = static_cast<int>(positions_.size());
  bin_of_.resize(static_cast<size_t>(seq_len));
  row_scale_.resize(static_cast<size_t>(side_));
  for (int i = 0; i < side_; ++i) {
    const int end = i + 1 < side_ ? positions_[static_cast<size_t>(i) + 1] : seq_len;
    for (int q = positions_[static_cast<size_t>(i)]; q < end; ++q) bin_of_[static_cast<size_t>(q)] = i;
    row_scale_[static_cast<size_t>(i)] = 1.0 / (end - positions_[static_cast<size_t>(i)]);
  }
  reset();
}

void SnapshotMapAccumulator::reset() {
  const size_t n = static_cast<size_t>(layers_) * heads_ * side_ * side_;
  sum_.assign(n, 0.0);
  first_.assign(n, 0.0);
  samples_.assign(static_cast<size_t>(layers_), 0);
}

void SnapshotMapAccumulator::add(int layer, const float* probs, int batch, const AttentionBlockLayout& layout) {
  if (layer < 0 || layer >= layers_)
    throw AttentionSnapshotError("attention snapshots: layer " + std::to_string(layer) + " out of range (" +
                                 std::to_string(layers_) + " layers)");
  if (batch < 0) throw AttentionSnapshotError("attention snapshots: negative batch size");
  if (batch > 0 && probs == nullptr) throw AttentionSnapshotError("attention snapshots: null probs pointer");
  const size_t T = static_cast<size_t>(seq_len_), side = static_cast<size_t>(side_);
  int64_t& n = samples_[static_cast<size_t>(layer)];
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < heads_; ++h) {
      const float* block = layout.block(probs, b, h);  // [T, T]
      const size_t o = (static_cast<size_t>(layer) * heads_ + h) * side * side;
      double* sum = sum_.data() + o;
      double* first = first_.data() + o;
      for (size_t q = 0; q < T; ++q) {
        const size_t r = static_cast<size_t>(bin_of_[q]);
        const double scale = row_scale_[r];
        double* out = sum + r * side;
        double* out_first = first + r * side;
        const float* x = block + q * T;
        for (size_t k = 0; k < T; ++k) {
          const double w = x[k] * scale;
          const size_t c = static_cast<size_t>(bin_of_[k]);
          out[c] += w;
          if (n == 0) out_first[c] += w;
        }
      }
    }
    ++n;
  }
}

int64_t SnapshotMapAccumulator::samples(int layer) const {
  if (layer < 0 || layer >= layers_)
    throw AttentionSnapshotError("attention snapshots: layer " + std::to_string(layer) + " out of range");
  return samples_[static_cast<size_t>(layer)];
}

void SnapshotMapAccumulator::check_samples() const {
  for (int l = 0; l < layers_; ++l)
    if (samples_[static_cast<size_t>(l)] == 0)
      throw AttentionSnapshotError("attention snapshots: layer " + std::to_string(l) + " has no samples");
}

std::vector<float> SnapshotMapAccumulator::mean() const {
  check_samples();
  std::vector<float> out(sum_.size());
  const size_t per_layer = static_cast<size_t>(heads_) * side_ * side_;
  for (size_t e = 0; e < sum_.size(); ++e)
    out[e] = static_cast<float>(sum_[e] / static_cast<double>(samples_[e / per_layer]));
  return out;
}

std::vector<float> SnapshotMapAccumulator::example() const {
  check_samples();
  return std::vector<float>(first_.begin(), first_.end());
}

void AttentionSnapshots::append(int64_t step, const SnapshotMapAccumulator& maps) {
  if (maps.layers() != layers || maps.heads() != heads || maps.seq_len() != seq_len)
    throw AttentionSnapshotError("attention snapshots: maps of " + std::to_string(maps.layers()) + " layers x " +
                                 std::to_string(maps.heads()) + " heads at T " + std::to_string(maps.seq_len()) +
                                 " do not fit snapshots of " + std::to_string(layers) + " x " + std::to_string(heads) +
                                 " at T " + std::to_string(seq_len));
  if (!steps.empty() && step <= steps.back())
    throw AttentionSnapshotError("attention snapshots: step " + std::to_string(step) +
                                 " is not after the last kept step " + std::to_string(steps.back()));
  const std::vector<float> m = maps.mean(), x = maps.example();
  steps.push_back(step);
  mean.insert(mean.end(), m.begin(), m.end());
  example.insert(example.end(), x.begin(), x.end());
}

void AttentionSnapshots::keep_before(int64_t step) {
  const size_t kept = static_cast<size_t>(std::lower_bound(steps.begin(), steps.end(), step) - steps.begin());
  steps.resize(kept);
  mean.resize(kept * block());
  example.resize(kept * block());
}

void AttentionSnapshots::keep_multiples_of(int64_t interval) {
  size_t kept = 0;
  const size_t b = block();
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i] % interval != 0) continue;
    if (kept != i) {
      steps[kept] = steps[i];
      std::copy_n(mean.begin() + static_cast<std::ptrdiff_t>(i * b), b,
                  mean.begin() + static_cast<std::ptrdiff_t>(kept * b));
      std::copy_n(example.begin() + static_cast<std::ptrdiff_t>(i * b), b,
                  example.begin() + static_cast<std::ptrdiff_t>(kept * b));
    }
    ++kept;
  }
  steps.resize(kept);
  mean.resize(kept * b);
  example.resize(kept * b);
}

int64_t snapshot_interval(int64_t every, int64_t limit, int64_t steps_done) {
  int64_t interval = every;
  // The multiples of `interval` in [0, steps_done): 0, interval, ..., one per started interval.
  while (limit > 0 && (steps_done + interval - 1) / interval >= limit) interval *= 2;
  return interval;
}

}  // namespace sinklab
