#include "stats/attention_maps.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sinklab {

AttentionMapAccumulator::AttentionMapAccumulator(int layers, int heads, int seq_len)
    : layers_(layers), heads_(heads), seq_len_(seq_len) {
  if (layers < 1 || heads < 1 || seq_len < 1)
    throw AttentionMapsError("attention maps: layers, heads and seq_len must be >= 1 (got " +
                             std::to_string(layers) + ", " + std::to_string(heads) + ", " +
                             std::to_string(seq_len) + ")");
  stride_ = attention_map_stride(seq_len);
  side_ = attention_map_side(seq_len);
  reset();
}

void AttentionMapAccumulator::reset() {
  const size_t n = static_cast<size_t>(layers_) * heads_ * side_ * side_;
  mean_.assign(n, 0.0);
  m2_.assign(n, 0.0);
  sample0_.assign(n, 0.0f);
  samples_.assign(static_cast<size_t>(layers_), 0);
}

size_t AttentionMapAccumulator::offset(int layer, int head) const {
  return (static_cast<size_t>(layer) * heads_ + head) * side_ * side_;
}

void AttentionMapAccumulator::check(int layer, int head) const {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    throw AttentionMapsError("attention maps: (layer " + std::to_string(layer) + ", head " +
                             std::to_string(head) + ") out of range (" + std::to_string(layers_) +
                             " layers, " + std::to_string(heads_) + " heads)");
}

void AttentionMapAccumulator::add(int layer, const float* probs, int batch) {
  add(layer, probs, batch, AttentionBlockLayout::batch_major(heads_, seq_len_));
}

void AttentionMapAccumulator::add(int layer, const float* probs, int batch, const AttentionBlockLayout& layout) {
  check(layer, 0);
  if (batch < 0) throw AttentionMapsError("attention maps: negative batch size");
  if (batch > 0 && probs == nullptr) throw AttentionMapsError("attention maps: null probs pointer");
  const size_t T = static_cast<size_t>(seq_len_), step = static_cast<size_t>(stride_),
               side = static_cast<size_t>(side_);
  int64_t& n = samples_[static_cast<size_t>(layer)];
  for (int b = 0; b < batch; ++b) {
    const double count = static_cast<double>(n + 1);
    for (int h = 0; h < heads_; ++h) {
      const float* block = layout.block(probs, b, h);  // [T, T]
      const size_t o = offset(layer, h);
      double* mean = mean_.data() + o;
      double* m2 = m2_.data() + o;
      float* first = sample0_.data() + o;
      for (size_t r = 0; r < side; ++r) {
        const float* x = block + r * step * T;  // query r * stride; its kept keys are x[c * stride]
        for (size_t c = 0; c < side; ++c) {
          const float w = x[c * step];
          const size_t e = r * side + c;
          if (n == 0) first[e] = w;
          const double delta = w - mean[e];
          mean[e] += delta / count;
          m2[e] += delta * (w - mean[e]);
        }
      }
    }
    ++n;
  }
}

int64_t AttentionMapAccumulator::samples(int layer) const {
  check(layer, 0);
  return samples_[static_cast<size_t>(layer)];
}

std::vector<float> AttentionMapAccumulator::mean(int layer, int head) const {
  check(layer, head);
  if (samples(layer) == 0)
    throw AttentionMapsError("attention maps: layer " + std::to_string(layer) + " has no samples");
  const size_t o = offset(layer, head), TT = static_cast<size_t>(side_) * side_;
  return std::vector<float>(mean_.begin() + static_cast<std::ptrdiff_t>(o),
                            mean_.begin() + static_cast<std::ptrdiff_t>(o + TT));
}

std::vector<float> AttentionMapAccumulator::stddev(int layer, int head) const {
  check(layer, head);
  const int64_t n = samples(layer);
  if (n == 0) throw AttentionMapsError("attention maps: layer " + std::to_string(layer) + " has no samples");
  const size_t o = offset(layer, head), TT = static_cast<size_t>(side_) * side_;
  std::vector<float> out(TT, 0.0f);
  if (n < 2) return out;
  for (size_t e = 0; e < TT; ++e)
    out[e] = static_cast<float>(std::sqrt(std::max(0.0, m2_[o + e] / static_cast<double>(n - 1))));
  return out;
}

std::vector<float> AttentionMapAccumulator::sample0(int layer, int head) const {
  check(layer, head);
  if (samples(layer) == 0)
    throw AttentionMapsError("attention maps: layer " + std::to_string(layer) + " has no samples");
  const size_t o = offset(layer, head), TT = static_cast<size_t>(side_) * side_;
  return std::vector<float>(sample0_.begin() + static_cast<std::ptrdiff_t>(o),
                            sample0_.begin() + static_cast<std::ptrdiff_t>(o + TT));
}

}  // namespace sinklab
