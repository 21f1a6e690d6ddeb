#include "stats/sink_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sinklab {

SinkStatisticsAccumulator::SinkStatisticsAccumulator(int layers, int heads, int seq_len, double eps)
    : layers_(layers), heads_(heads), seq_len_(seq_len), eps_(eps) {
  if (layers < 1 || heads < 1)
    throw SinkStatisticsError("sink statistics: layers and heads must be >= 1 (got layers=" +
                              std::to_string(layers) + ", heads=" + std::to_string(heads) + ")");
  if (seq_len < 3)
    throw SinkStatisticsError("sink statistics: seq_len must be >= 3 so that a non-trigger row "
                              "exists (got " + std::to_string(seq_len) + ")");
  if (!(eps >= 0.0 && eps <= 1.0))
    throw SinkStatisticsError("sink statistics: eps must be in [0, 1] (got " + std::to_string(eps) + ")");
  reset();
}

void SinkStatisticsAccumulator::reset() {
  Sums init;
  init.bos_nontrigger_min = std::numeric_limits<double>::infinity();
  sums_.assign(static_cast<size_t>(layers_) * heads_, init);
  samples_.assign(static_cast<size_t>(layers_), 0);
}

int64_t SinkStatisticsAccumulator::samples(int layer) const {
  if (layer < 0 || layer >= layers_)
    throw SinkStatisticsError("sink statistics: layer " + std::to_string(layer) + " out of range [0, " +
                              std::to_string(layers_) + ")");
  return samples_[static_cast<size_t>(layer)];
}

void SinkStatisticsAccumulator::add(int layer, const float* probs, int batch, const int32_t* trigger) {
  add(layer, probs, batch, trigger, AttentionBlockLayout::batch_major(heads_, seq_len_));
}

void SinkStatisticsAccumulator::add(int layer, const float* probs, int batch, const int32_t* trigger,
                                    const AttentionBlockLayout& layout) {
  if (layer < 0 || layer >= layers_)
    throw SinkStatisticsError("sink statistics: layer " + std::to_string(layer) + " out of range [0, " +
                              std::to_string(layers_) + ")");
  if (batch < 0) throw SinkStatisticsError("sink statistics: negative batch size");
  if (batch > 0 && (probs == nullptr || trigger == nullptr))
    throw SinkStatisticsError("sink statistics: null probs or trigger pointer");
  const int T = seq_len_;
  for (int b = 0; b < batch; ++b)
    if (trigger[b] < 1 || trigger[b] >= T)
      throw SinkStatisticsError("sink statistics: trigger position " + std::to_string(trigger[b]) +
                                " of sample " + std::to_string(b) + " is outside 1.." +
                                std::to_string(T - 1));

  for (int h = 0; h < heads_; ++h) {
    Sums& s = sums_[static_cast<size_t>(layer) * heads_ + h];
    for (int b = 0; b < batch; ++b) {
      const float* A = layout.block(probs, b, h);
      const int j = trigger[b];
      double alpha0 = 0.0;
      for (int i = 0; i < T; ++i) {
        const float* row = A + static_cast<size_t>(i) * T;
        double mass = 0.0;
        for (int k = 0; k <= i; ++k) mass += row[k];
        const double bos = row[0];
        if (mass > 0.0) alpha0 += bos / mass;
        if (i == 0) continue;
        if (i == j) {
          s.trigger_bos += bos;
          double keys = 0.0, dev = 0.0;
          const double uniform = 1.0 / j;
          for (int k = 1; k <= j; ++k) {
            keys += row[k];
            dev = std::max(dev, std::abs(row[k] - uniform));
          }
          s.trigger_keys_mean += keys / j;
          s.trigger_keys_max_deviation += dev;
          continue;
        }
        s.bos_nontrigger += bos;
        s.bos_nontrigger_min = std::min(s.bos_nontrigger_min, bos);
        s.mass_nontrigger += mass;
        if (mass > 0.0) {
          double entropy = 0.0;
          for (int k = 0; k <= i; ++k) {
            const double p = row[k] / mass;
            if (p > 0.0) entropy -= p * std::log(p);  // 0 log 0 = 0
          }
          s.entropy_nontrigger += entropy;
        }
      }
      s.sink_score += alpha0 / T;
    }
  }
  samples_[static_cast<size_t>(layer)] += batch;
}

std::vector<HeadSinkStats> SinkStatisticsAccumulator::finish() const {
  std::vector<HeadSinkStats> out;
  out.reserve(sums_.size());
  for (int l = 0; l < layers_; ++l) {
    const int64_t n = samples_[static_cast<size_t>(l)];
    if (n == 0)
      throw SinkStatisticsError("sink statistics: layer " + std::to_string(l) +
                                " received no samples before finish()");
    const double rows = static_cast<double>(n) * (seq_len_ - 2);  // T-2 non-trigger rows per sample
    for (int h = 0; h < heads_; ++h) {
      const Sums& s = sums_[static_cast<size_t>(l) * heads_ + h];
      HeadSinkStats r;
      r.layer = l;
      r.head = h;
      r.bos_mass_nontrigger_mean = s.bos_nontrigger / rows;
      r.bos_mass_nontrigger_min = s.bos_nontrigger_min;
      r.mass_nontrigger_mean = s.mass_nontrigger / rows;
      r.nonbos_mass_nontrigger_mean = (s.mass_nontrigger - s.bos_nontrigger) / rows;
      r.trigger_bos = s.trigger_bos / n;
      r.trigger_keys_mean = s.trigger_keys_mean / n;
      r.trigger_keys_max_deviation = s.trigger_keys_max_deviation / n;
      r.sink_score = s.sink_score / n;
      r.sink_head = r.sink_score > eps_;
      r.entropy_nontrigger = s.entropy_nontrigger / rows;
      out.push_back(r);
    }
  }
  return out;
}

double uniform_causal_baseline(int seq_len) {
  if (seq_len < 1)
    throw SinkStatisticsError("uniform_causal_baseline: seq_len must be >= 1 (got " +
                              std::to_string(seq_len) + ")");
  double harmonic = 0.0;
  for (int i = seq_len; i >= 1; --i) harmonic += 1.0 / i;  // small terms first
  return harmonic / seq_len;
}

double sink_rate(const std::vector<HeadSinkStats>& heads) {
  if (heads.empty()) throw SinkStatisticsError("sink_rate: no heads given");
  const auto sinks = std::count_if(heads.begin(), heads.end(), [](const HeadSinkStats& h) { return h.sink_head; });
  return static_cast<double>(sinks) / static_cast<double>(heads.size());
}

}  // namespace sinklab
