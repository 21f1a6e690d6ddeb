#include "stats/sink_statistics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/observe/position_roles.h"

namespace sinklab {
namespace {

using namespace position_role;

constexpr size_t kStatistics = kHeadStatistics.size();
constexpr uint8_t kKnownRoles = kSinkKey | kNoOpRow | kActiveRow;
constexpr double kNull = std::numeric_limits<double>::quiet_NaN();

constexpr size_t kRowValues = static_cast<size_t>(RowValue::sink_excess) + 1;

constexpr uint32_t bit(RowValue v) { return uint32_t{1} << static_cast<unsigned>(v); }

constexpr bool reads(StatisticRows rows, uint8_t role) {
  switch (rows) {
    case StatisticRows::no_op: return (role & kNoOpRow) != 0;
    case StatisticRows::active: return (role & kActiveRow) != 0;
    case StatisticRows::non_sink: return (role & kSinkKey) == 0;
    case StatisticRows::all: return true;
  }
  return false;
}

// The statistics that read a row with a given role byte, and the row values they need, worked out
// once so that a row computes only what is read.
struct RowReaders {
  std::array<uint8_t, kStatistics> statistics{};  // indices into kHeadStatistics
  size_t count = 0;
  uint32_t values = 0;  // bit(RowValue)
};

constexpr std::array<RowReaders, kKnownRoles + 1> row_readers() {
  std::array<RowReaders, kKnownRoles + 1> readers{};
  for (uint8_t role = 0; role <= kKnownRoles; ++role)
    for (size_t s = 0; s < kStatistics; ++s)
      if (reads(kHeadStatistics[s].rows, role)) {
        RowReaders& r = readers[role];
        r.statistics[r.count++] = static_cast<uint8_t>(s);
        r.values |= bit(kHeadStatistics[s].value);
      }
  return readers;
}

// The values of one row i (keys k <= i), each as plus - minus: non_sink_mass keeps its two parts so
// that its mean is (sum of row masses - sum of sink masses) / rows, the order in which earlier runs
// computed it; every other value has minus = 0.
struct RowValues {
  std::array<double, kRowValues> plus{}, minus{};
  uint32_t defined = 0;  // bit(RowValue); keys_* are undefined on a row without non-sink keys
};

// The per-row facts of one (sample, head): T values each, or null.
struct SampleFacts {
  const float *virtual_mass = nullptr, *gate = nullptr, *value_norms = nullptr, *value_norms_v = nullptr;
};

SampleFacts sample_facts(const RowFacts& f, int b, int h, int batch, int T) {
  const size_t offset = (static_cast<size_t>(h) * batch + b) * T;
  const auto at = [offset](const float* a) { return a ? a + offset : nullptr; };
  return {at(f.virtual_mass), at(f.gate), at(f.value_norms), at(f.value_norms_v)};
}

// sum over the sink keys of |A[i,k]| norms[k] and the same over all keys k <= i.
struct Weighted {
  double sink = 0.0, all = 0.0;
};
Weighted value_weighted(const float* row, int i, const uint8_t* roles, const float* norms) {
  Weighted w;
  for (int k = 0; k <= i; ++k) {
    const double contribution = std::abs(static_cast<double>(row[k])) * norms[k];
    w.all += contribution;
    if (roles[k] & kSinkKey) w.sink += contribution;
  }
  return w;
}

RowValues row_values(const float* row, int i, const uint8_t* roles, uint32_t needed, const SampleFacts& facts) {
  double mass = 0.0, sink = 0.0;
  bool any_sink = false;
  for (int k = 0; k <= i; ++k) {
    mass += row[k];
    if (roles[k] & kSinkKey) {
      sink = any_sink ? sink + row[k] : row[k];  // a lone sink key gives exactly A[i,k], even -0
      any_sink = true;
    }
  }
  RowValues v;
  auto set = [&v](RowValue which, double plus, double minus = 0.0) {
    v.plus[static_cast<size_t>(which)] = plus;
    v.minus[static_cast<size_t>(which)] = minus;
    v.defined |= bit(which);
  };
  set(RowValue::sink_mass, sink);
  set(RowValue::row_mass, mass);
  set(RowValue::non_sink_mass, mass, sink);
  set(RowValue::sink_share, mass > 0.0 ? sink / mass : 0.0);
  if (needed & bit(RowValue::sink_excess)) {
    int sink_keys = 0;
    for (int k = 0; k <= i; ++k) sink_keys += (roles[k] & kSinkKey) != 0;
    if (sink_keys <= i) {  // some visible key is not a sink key: uniform attention leaves room above it
      const double uniform = static_cast<double>(sink_keys) / (i + 1);
      set(RowValue::sink_excess, ((mass > 0.0 ? sink / mass : 0.0) - uniform) / (1.0 - uniform));
    }
  }
  if (needed & bit(RowValue::entropy)) {
    double entropy = 0.0;
    if (mass > 0.0)
      for (int k = 0; k <= i; ++k) {
        const double p = row[k] / mass;
        if (p > 0.0) entropy -= p * std::log(p);  // 0 log 0 = 0
      }
    set(RowValue::entropy, entropy);
  }
  if (needed & (bit(RowValue::keys_mean) | bit(RowValue::keys_max_deviation))) {
    int keys = 0;
    for (int k = 0; k <= i; ++k) keys += (roles[k] & kSinkKey) == 0;
    if (keys > 0) {
      const double uniform = 1.0 / keys;
      double sum = 0.0, deviation = 0.0;
      for (int k = 0; k <= i; ++k) {
        if (roles[k] & kSinkKey) continue;
        sum += row[k];
        deviation = std::max(deviation, std::abs(row[k] - uniform));
      }
      set(RowValue::keys_mean, sum / keys);
      set(RowValue::keys_max_deviation, deviation);
    }
  }
  if (needed & bit(RowValue::sink_share_abs)) {
    double sink_abs = 0.0, all_abs = 0.0;
    for (int k = 0; k <= i; ++k) {
      const double a = std::abs(static_cast<double>(row[k]));
      all_abs += a;
      if (roles[k] & kSinkKey) sink_abs += a;
    }
    set(RowValue::sink_share_abs, all_abs > 0.0 ? sink_abs / all_abs : 0.0);
  }
  // Sums of the row masses and the sink masses kept apart, as for non_sink_mass: without a gate the
  // mean is bit for bit the content mass.
  const double gate = facts.gate ? facts.gate[i] : 1.0;
  set(RowValue::gated_non_sink_mass, mass * gate, sink * gate);
  if (facts.gate) set(RowValue::gate, facts.gate[i]);
  if (facts.virtual_mass) set(RowValue::virtual_mass, facts.virtual_mass[i]);  // NaN rows make the mean null
  if (facts.value_norms && (needed & (bit(RowValue::value_weighted_sink_share) | bit(RowValue::value_weighted_zero)))) {
    const Weighted w = value_weighted(row, i, roles, facts.value_norms);
    set(RowValue::value_weighted_zero, w.all == 0.0 ? 1.0 : 0.0);
    if (w.all != 0.0) set(RowValue::value_weighted_sink_share, w.sink / w.all);  // NaN norms stay NaN
  }
  if (facts.value_norms_v && (needed & bit(RowValue::value_weighted_sink_share_v))) {
    const Weighted w = value_weighted(row, i, roles, facts.value_norms_v);
    if (w.all != 0.0) set(RowValue::value_weighted_sink_share_v, w.sink / w.all);
  }
  if (!std::isfinite(mass))  // non-finite attention (a diverged model): none of its statistics are numbers
    for (double& x : v.plus) x = std::numeric_limits<double>::quiet_NaN();
  return v;
}

bool per_sample(Reduction r) { return r == Reduction::sample_mean || r == Reduction::above_eps; }

std::string layer_range(int layer, int layers) {
  return "sink statistics: layer " + std::to_string(layer) + " out of range [0, " + std::to_string(layers) + ")";
}

}  // namespace

SinkStatisticsAccumulator::SinkStatisticsAccumulator(int layers, int heads, int seq_len, double eps)
    : layers_(layers), heads_(heads), seq_len_(seq_len), eps_(eps) {
  if (layers < 1 || heads < 1)
    throw SinkStatisticsError("sink statistics: layers and heads must be >= 1 (got layers=" +
                              std::to_string(layers) + ", heads=" + std::to_string(heads) + ")");
  // The shortest sequence with a sink key, an active row and a no-op row.
  if (seq_len < 3)
    throw SinkStatisticsError("sink statistics: seq_len must be >= 3 (got " + std::to_string(seq_len) + ")");
  if (!(eps >= 0.0 && eps <= 1.0))
    throw SinkStatisticsError("sink statistics: eps must be in [0, 1] (got " + std::to_string(eps) + ")");
  reset();
}

void SinkStatisticsAccumulator::reset() {
  sums_.assign(static_cast<size_t>(layers_) * heads_ * kStatistics, Sums{});
  row_sink_.assign(static_cast<size_t>(layers_) * heads_ * seq_len_, 0.0);
  samples_.assign(static_cast<size_t>(layers_), 0);
}

int64_t SinkStatisticsAccumulator::samples(int layer) const {
  if (layer < 0 || layer >= layers_) throw SinkStatisticsError(layer_range(layer, layers_));
  return samples_[static_cast<size_t>(layer)];
}

void SinkStatisticsAccumulator::check_roles(const uint8_t* roles, int batch) const {
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < seq_len_; ++i) {
      const uint8_t role = roles[static_cast<size_t>(b) * seq_len_ + i];
      const bool unknown = (role & ~kKnownRoles) != 0, both = (role & kNoOpRow) && (role & kActiveRow);
      if (!unknown && !both) continue;
      throw SinkStatisticsError("sink statistics: role byte " + std::to_string(role) + " at position " +
                                std::to_string(i) + " of sample " + std::to_string(b) +
                                (unknown ? " has unknown bits (known: sink key 1, no-op row 2, active row 4)"
                                         : " is both a no-op row and an active row"));
    }
}

void SinkStatisticsAccumulator::add(int layer, const float* probs, int batch, const uint8_t* roles) {
  add(layer, probs, batch, roles, AttentionBlockLayout::batch_major(heads_, seq_len_));
}

void SinkStatisticsAccumulator::add(int layer, const float* probs, int batch, const uint8_t* roles,
                                    const AttentionBlockLayout& layout, const RowFacts& facts) {
  if (layer < 0 || layer >= layers_) throw SinkStatisticsError(layer_range(layer, layers_));
  if (batch < 0) throw SinkStatisticsError("sink statistics: negative batch size");
  if (batch > 0 && (probs == nullptr || roles == nullptr))
    throw SinkStatisticsError("sink statistics: null probs or roles pointer");
  check_roles(roles, batch);

  static constexpr std::array<RowReaders, kKnownRoles + 1> readers = row_readers();
  const int T = seq_len_;
  for (int h = 0; h < heads_; ++h) {
    Sums* sums = sums_.data() + (static_cast<size_t>(layer) * heads_ + h) * kStatistics;
    double* row_sink = row_sink_.data() + (static_cast<size_t>(layer) * heads_ + h) * T;
    for (int b = 0; b < batch; ++b) {
      const float* A = layout.block(probs, b, h);
      const uint8_t* role = roles + static_cast<size_t>(b) * T;
      const SampleFacts sample = sample_facts(facts, b, h, batch, T);
      std::array<double, kStatistics> sample_sum{};  // per-sample reductions: this sample's rows
      std::array<int, kStatistics> sample_rows{};
      std::array<double, kStatistics> sample_sink{};  // above_eps: this sample's sink masses, not renormalized
      for (int i = 0; i < T; ++i) {
        const RowReaders& r = readers[role[i]];
        const RowValues v = row_values(A + static_cast<size_t>(i) * T, i, role, r.values, sample);
        row_sink[i] += v.plus[static_cast<size_t>(RowValue::sink_mass)];
        for (size_t n = 0; n < r.count; ++n) {
          const size_t s = r.statistics[n];
          const HeadStatistic& stat = kHeadStatistics[s];
          const size_t value = static_cast<size_t>(stat.value);
          if (!(v.defined & bit(stat.value))) continue;
          Sums& sum = sums[s];
          switch (stat.reduction) {
            case Reduction::mean:
              sum.sum += v.plus[value];
              sum.minus += v.minus[value];
              ++sum.count;
              break;
            case Reduction::min: {
              const double x = v.plus[value] - v.minus[value];
              if (std::isnan(x) || x < sum.min) sum.min = x;  // std::min would drop a NaN; once NaN, it stays
              ++sum.count;
              break;
            }
            case Reduction::sample_mean:
              sample_sum[s] += v.plus[value] - v.minus[value];
              ++sample_rows[s];
              break;
            case Reduction::above_eps:
              sample_sum[s] += v.plus[value] - v.minus[value];
              sample_sink[s] += v.plus[static_cast<size_t>(RowValue::sink_mass)];
              ++sample_rows[s];
              break;
          }
        }
      }
      for (size_t s = 0; s < kStatistics; ++s)
        if (per_sample(kHeadStatistics[s].reduction) && sample_rows[s] > 0) {
          sums[s].sum += sample_sum[s] / sample_rows[s];
          sums[s].sink += sample_sink[s] / sample_rows[s];
          ++sums[s].count;
        }
    }
  }
  samples_[static_cast<size_t>(layer)] += batch;
}

std::vector<HeadSinkStats> SinkStatisticsAccumulator::finish() const {
  std::vector<HeadSinkStats> out;
  out.reserve(static_cast<size_t>(layers_) * heads_);
  for (int l = 0; l < layers_; ++l) {
    if (samples_[static_cast<size_t>(l)] == 0)
      throw SinkStatisticsError("sink statistics: layer " + std::to_string(l) +
                                " received no samples before finish()");
    for (int h = 0; h < heads_; ++h) {
      const Sums* sums = sums_.data() + (static_cast<size_t>(l) * heads_ + h) * kStatistics;
      HeadSinkStats r;
      r.layer = l;
      r.head = h;
      const double* row_sink = row_sink_.data() + (static_cast<size_t>(l) * heads_ + h) * seq_len_;
      const double samples = static_cast<double>(samples_[static_cast<size_t>(l)]);
      r.bos_mass_by_row.resize(static_cast<size_t>(seq_len_));
      for (int i = 0; i < seq_len_; ++i) r.bos_mass_by_row[static_cast<size_t>(i)] = row_sink[i] / samples;
      for (size_t s = 0; s < kStatistics; ++s) {
        const HeadStatistic& stat = kHeadStatistics[s];
        const Sums& sum = sums[s];
        const double n = static_cast<double>(sum.count);
        double value = kNull;  // no rows
        if (sum.count > 0) {
          switch (stat.reduction) {
            case Reduction::mean: value = (sum.sum - sum.minus) / n; break;
            case Reduction::min: value = sum.min; break;
            case Reduction::sample_mean:
            case Reduction::above_eps: value = sum.sum / n; break;
          }
        }
        if (stat.is_flag())  // the sink-head rule (docs/analysis.md); NaN (no rows) is not above eps
          r.*stat.flag = is_sink_head(value, sum.sink / n, eps_);
        else
          r.*stat.number = value;
      }
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

bool is_sink_head(double sink_share_mean, double sink_mass_mean, double eps) {
  return sink_share_mean > eps && sink_mass_mean > eps;
}

bool apply_sink_head_rule(std::vector<HeadSinkStats>& heads, double eps) {
  bool changed = false;
  for (HeadSinkStats& h : heads) {
    if (h.bos_mass_by_row.empty()) continue;
    double mass = 0.0;
    for (double m : h.bos_mass_by_row) mass += m;
    mass /= static_cast<double>(h.bos_mass_by_row.size());
    // Only ever clears a flag: a head the file calls no sink failed the share test, which stays.
    const bool flag = h.sink_head && is_sink_head(h.sink_score, mass, eps);
    changed |= flag != h.sink_head;
    h.sink_head = flag;
  }
  return changed;
}

double sink_rate(const std::vector<HeadSinkStats>& heads) {
  if (heads.empty()) throw SinkStatisticsError("sink_rate: no heads given");
  const auto sinks = std::count_if(heads.begin(), heads.end(), [](const HeadSinkStats& h) { return h.sink_head; });
  return static_cast<double>(sinks) / static_cast<double>(heads.size());
}

}  // namespace sinklab
