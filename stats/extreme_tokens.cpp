#include "stats/extreme_tokens.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace sinklab {
namespace {

double norm_of(const float* x, int64_t n) {
  double s = 0.0;
  for (int64_t d = 0; d < n; ++d) s += static_cast<double>(x[d]) * x[d];
  return std::sqrt(s);
}

double dot_of(const float* a, const float* b, int64_t n) {
  double s = 0.0;
  for (int64_t d = 0; d < n; ++d) s += static_cast<double>(a[d]) * b[d];
  return s;
}

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// A statistic of non-finite numbers (a diverged model, NaN weights) is NaN, null in JSON, as the head
// statistics' are: never the 0 or -1 that a comparison with NaN would leave behind.
bool all_finite(std::initializer_list<double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

// cos(a, b) with 0 for a zero vector (a query or key of norm 0 points nowhere).
double cosine(double dot, double norm_a, double norm_b) {
  if (!all_finite({dot, norm_a, norm_b})) return kUndefined;
  return norm_a > 0.0 && norm_b > 0.0 ? dot / (norm_a * norm_b) : 0.0;
}

// a / b with 0 when b is 0 (nothing to compare with).
double ratio_or_zero(double a, double b) {
  if (!all_finite({a, b})) return kUndefined;
  return b > 0.0 ? a / b : 0.0;
}

double median_of(std::vector<double>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

// "blocks.{l}.resid_post" -> l; -1 for any other name.
int resid_post_layer(std::string_view name) {
  constexpr std::string_view prefix = "blocks.", suffix = ".resid_post";
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix)
    return -1;
  const std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  int layer = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    layer = layer * 10 + (c - '0');
  }
  return layer;
}

}  // namespace

ExtremeTokenMeter::ExtremeTokenMeter(int layers, int heads, double eps, bool key_bias_slot)
    : layers_(layers),
      heads_(heads),
      eps_(eps),
      key_bias_slot_(key_bias_slot),
      head_sums_(static_cast<size_t>(layers * heads)),
      head_windows_(static_cast<size_t>(layers * heads), 0),
      layer_sums_(static_cast<size_t>(layers)) {}

// One (window b, head h) block: weights [T, T] (row i, key k <= i), q/k/v [T, D] head-major.
void ExtremeTokenMeter::add_head_window(const AttentionView& view, int64_t b, int64_t h) {
  const int64_t T = view.seq_len, D = view.head_dim;
  HeadSums& s = head_sums_[static_cast<size_t>(view.layer * heads_ + h)];
  const float* A = view.weights_block(b, h);
  const int64_t block = ((h * view.batch) + b) * T * D;
  const float* q = view.queries + block;
  const float* k = view.keys + block;
  const float* v = view.values + block;
  // Each row's mass over its visible keys, so alpha_k is a share of the row (rows of no mass share nothing).
  std::vector<double>& row_mass = scratch_row_mass_;
  row_mass.assign(static_cast<size_t>(T), 0.0);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t k = 0; k <= i; ++k) row_mass[static_cast<size_t>(i)] += A[i * T + k];
  for (int key = 0; key < kFirstKeys && key < T; ++key) {
    double sum = 0.0;
    for (int64_t i = key; i < T; ++i) {
      const double mass = row_mass[static_cast<size_t>(i)];  // non-finite iff a weight of the row is
      if (!std::isfinite(mass))
        sum = kUndefined;
      else if (mass > 0.0)
        sum += A[i * T + key] / mass;
    }
    s.alpha[static_cast<size_t>(key)] += sum / static_cast<double>(T - key);
  }
  if (key_bias_slot_ && view.virtual_mass) {
    const float* slot = view.row_facts(view.virtual_mass, b, h);
    double sum = 0.0;
    for (int64_t i = 0; i < T; ++i) sum += slot[i];
    s.slot += sum / static_cast<double>(T);
  }
  if (T < 2) return;  // drain and alignment compare position 0 with later ones
  std::vector<double>& key_norms = scratch_key_norms_;
  key_norms.resize(static_cast<size_t>(T));
  double v_rest = 0.0, k_rest = 0.0;
  for (int64_t j = 0; j < T; ++j) {
    key_norms[static_cast<size_t>(j)] = norm_of(k + j * D, D);
    if (j > 0) {
      v_rest += norm_of(v + j * D, D);
      k_rest += key_norms[static_cast<size_t>(j)];
    }
  }
  v_rest /= static_cast<double>(T - 1);
  k_rest /= static_cast<double>(T - 1);
  s.value_drain += ratio_or_zero(norm_of(v, D), v_rest);
  s.key_norm_ratio += ratio_or_zero(key_norms[0], k_rest);
  double cos_first = 0.0, cos_others = 0.0;
  int64_t others = 0;
  for (int64_t i = 1; i < T; ++i) {
    const float* qi = q + i * D;
    const double q_norm = norm_of(qi, D);
    cos_first += cosine(dot_of(qi, k, D), q_norm, key_norms[0]);
    for (int64_t j = 1; j <= i; ++j)
      cos_others += cosine(dot_of(qi, k + j * D, D), q_norm, key_norms[static_cast<size_t>(j)]);
    others += i;
  }
  s.key_cos_first += cos_first / static_cast<double>(T - 1);
  s.key_cos_others += cos_others / static_cast<double>(others);
}

void ExtremeTokenMeter::on_attention(const AttentionView& view) {
  if (!view.weights || !view.queries || !view.keys || !view.values)
    throw std::logic_error("ExtremeTokenMeter: attention did not hand over its weights, q, k and v");
  if (view.layer < 0 || view.layer >= layers_ || view.heads != heads_)
    throw std::logic_error("ExtremeTokenMeter: attention of layer " + std::to_string(view.layer) + " with " +
                           std::to_string(view.heads) + " heads, expected " + std::to_string(layers_) + " x " +
                           std::to_string(heads_));
  if (seq_len_ == 0) seq_len_ = static_cast<int>(view.seq_len);
  if (view.seq_len != seq_len_) throw std::logic_error("ExtremeTokenMeter: windows of different lengths");
  for (int64_t h = 0; h < view.heads; ++h)
    for (int64_t b = 0; b < view.batch; ++b) add_head_window(view, b, h);
  for (int64_t h = 0; h < view.heads; ++h) head_windows_[static_cast<size_t>(view.layer * heads_ + h)] += view.batch;
  if (view.layer == 0) windows_ += view.batch;
}

// blocks.{l}.resid_post [B, T, C] (a strided view): every |h| for the median, the running max, the
// per-(position, channel) sums and the residual-state peak of each window.
void ExtremeTokenMeter::on_activation(std::string_view name, const Tensor& value) {
  const int layer = resid_post_layer(name);
  if (layer < 0 || layer >= layers_) return;
  LayerSums& s = layer_sums_[static_cast<size_t>(layer)];
  const int64_t B = value.dim(0), T = value.dim(1), C = value.dim(2);
  const int64_t sb = value.stride(0), st = value.stride(1), sc = value.stride(2);
  if (s.windows == 0) {
    s.channels = static_cast<int>(C);
    s.mean_abs.assign(static_cast<size_t>(T * C), 0.0);
  }
  if (static_cast<int64_t>(s.mean_abs.size()) != T * C)
    throw std::logic_error("ExtremeTokenMeter: windows of different lengths");
  std::vector<double> norms(static_cast<size_t>(T));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < T; ++i) {
      const float* row = value.data() + b * sb + i * st;
      double sq = 0.0;
      for (int64_t c = 0; c < C; ++c) {
        const double x = row[c * sc];
        const double a = std::fabs(x);
        sq += x * x;
        s.abs_values.push_back(static_cast<float>(a));
        s.mean_abs[static_cast<size_t>(i * C + c)] += a;
        // The largest |h|, or once there is one, the first non-finite |h| (a NaN compares false).
        const bool first_non_finite = !std::isfinite(a) && !s.non_finite;
        if (first_non_finite || (!s.non_finite && a > s.max_abs)) {
          s.max_abs = a;
          s.max_position = static_cast<int>(i);
          s.max_channel = static_cast<int>(c);
        }
        s.non_finite = s.non_finite || first_non_finite;
      }
      norms[static_cast<size_t>(i)] = std::sqrt(sq);
    }
    if (s.non_finite) {  // the layer's ratios are undefined; NaN would break median_of's ordering
      ++s.windows;
      continue;
    }
    const double first = norms[0];
    const double median = median_of(norms);
    if (median > 0.0) {
      s.residual_peak += first / median;
      ++s.peak_windows;
    }
    ++s.windows;
  }
}

ExtremeTokenStats ExtremeTokenMeter::finish() const {
  if (windows_ == 0) throw std::logic_error("ExtremeTokenMeter: no window was observed");
  ExtremeTokenStats r;
  r.seq_len = seq_len_;
  r.windows = static_cast<int>(windows_);
  r.eps = eps_;
  double harmonic = 0.0;
  for (int n = 1; n <= seq_len_; ++n) harmonic += 1.0 / n;
  r.uniform_baseline = harmonic / seq_len_;
  std::array<int, kFirstKeys> above{};
  int slot_above = 0;
  // A head whose alpha is NaN is neither above eps nor below it: the share of heads is NaN then.
  std::array<bool, kFirstKeys> undefined_alpha{};
  bool undefined_slot = false;
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h) {
      const size_t at = static_cast<size_t>(l * heads_ + h);
      const HeadSums& s = head_sums_[at];
      const double n = static_cast<double>(head_windows_[at]);
      if (n == 0) throw std::logic_error("ExtremeTokenMeter: layer " + std::to_string(l) + " was not observed");
      HeadExtremes e;
      e.layer = l;
      e.head = h;
      for (int k = 0; k < kFirstKeys; ++k) {
        e.alpha[static_cast<size_t>(k)] = k < seq_len_ ? s.alpha[static_cast<size_t>(k)] / n : 0.0;
        if (e.alpha[static_cast<size_t>(k)] > eps_) ++above[static_cast<size_t>(k)];
        if (std::isnan(e.alpha[static_cast<size_t>(k)])) undefined_alpha[static_cast<size_t>(k)] = true;
      }
      if (key_bias_slot_) {
        e.alpha_slot = s.slot / n;
        if (e.alpha_slot > eps_) ++slot_above;
        undefined_slot = undefined_slot || std::isnan(e.alpha_slot);
      }
      e.value_drain = s.value_drain / n;
      e.key_norm_ratio = s.key_norm_ratio / n;
      e.key_cos_first = s.key_cos_first / n;
      e.key_cos_others = s.key_cos_others / n;
      r.heads.push_back(e);
    }
  const double all_heads = static_cast<double>(layers_ * heads_);
  for (int k = 0; k < kFirstKeys; ++k)
    r.sink_rate[static_cast<size_t>(k)] =
        undefined_alpha[static_cast<size_t>(k)] ? kUndefined : above[static_cast<size_t>(k)] / all_heads;
  if (key_bias_slot_) r.sink_rate_slot = undefined_slot ? kUndefined : slot_above / all_heads;
  for (int l = 0; l < layers_; ++l) {
    const LayerSums& s = layer_sums_[static_cast<size_t>(l)];
    if (s.windows == 0) continue;  // the model's blocks did not hand over their output
    LayerExtremes e;
    e.layer = l;
    std::vector<double> all(s.abs_values.begin(), s.abs_values.end());
    e.median_abs = s.non_finite ? kUndefined : median_of(all);
    e.max_abs = s.non_finite ? kUndefined : s.max_abs;
    const double undefined = kUndefined;
    e.massive_ratio = e.median_abs > 0.0 ? e.max_abs / e.median_abs : undefined;
    e.max_position = s.max_position;
    e.max_channel = s.max_channel;
    std::vector<size_t> order(s.mean_abs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    const size_t top = std::min<size_t>(kTopActivations, order.size());
    // Largest first, NaN before any number (a strict order even then), ties by position.
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](size_t a, size_t b) {
                        const double x = s.mean_abs[a], y = s.mean_abs[b];
                        if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && (!std::isnan(y) || a < b);
                        return x > y || (x == y && a < b);
                      });
    for (size_t t = 0; t < top; ++t) {
      TopActivation a;
      a.position = static_cast<int>(order[t] / static_cast<size_t>(s.channels));
      a.channel = static_cast<int>(order[t] % static_cast<size_t>(s.channels));
      a.mean_abs = s.mean_abs[order[t]] / s.windows;
      a.ratio = e.median_abs > 0.0 ? a.mean_abs / e.median_abs : undefined;
      e.top.push_back(a);
    }
    e.residual_peak = !s.non_finite && s.peak_windows > 0 ? s.residual_peak / s.peak_windows : undefined;
    r.layers.push_back(std::move(e));
  }
  return r;
}

}  // namespace sinklab
