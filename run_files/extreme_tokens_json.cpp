#include "run_files/extreme_tokens_json.h"

#include <cmath>

#include "run_files/json_fields.h"

namespace sinklab {
namespace {

using namespace json_fields;

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json head_json(const HeadExtremes& h) {
  nlohmann::json alpha = nlohmann::json::array();
  for (double a : h.alpha) alpha.push_back(number(a));
  return {{"layer", h.layer},
          {"head", h.head},
          {"alpha", alpha},
          {"alpha_slot", number(h.alpha_slot)},
          {"value_drain", number(h.value_drain)},
          {"key_norm_ratio", number(h.key_norm_ratio)},
          {"key_cos_first", number(h.key_cos_first)},
          {"key_cos_others", number(h.key_cos_others)}};
}

nlohmann::json layer_json(const LayerExtremes& l) {
  nlohmann::json top = nlohmann::json::array();
  for (const TopActivation& a : l.top)
    top.push_back({{"position", a.position},
                   {"channel", a.channel},
                   {"mean_abs", number(a.mean_abs)},
                   {"ratio", number(a.ratio)}});
  return {{"layer", l.layer},
          {"median_abs", number(l.median_abs)},
          {"max_abs", number(l.max_abs)},
          {"massive_ratio", number(l.massive_ratio)},
          {"max_position", l.max_position},
          {"max_channel", l.max_channel},
          {"top", top},
          {"residual_peak", number(l.residual_peak)}};
}

nlohmann::json stats_json(const ExtremeTokenStats& s) {
  nlohmann::json heads = nlohmann::json::array(), layers = nlohmann::json::array(), rates = nlohmann::json::array();
  for (const HeadExtremes& h : s.heads) heads.push_back(head_json(h));
  for (const LayerExtremes& l : s.layers) layers.push_back(layer_json(l));
  for (double r : s.sink_rate) rates.push_back(number(r));
  return {{"seq_len", s.seq_len},     {"windows", s.windows}, {"eps", s.eps},
          {"uniform_baseline", number(s.uniform_baseline)},   {"sink_rate", rates},
          {"sink_rate_slot", number(s.sink_rate_slot)},       {"heads", heads},
          {"layers", layers}};
}

int small_int(const nlohmann::json& j, const std::string& key, const std::string& where, int64_t low, int64_t high) {
  const int64_t v = get_int(j, key, where);
  if (v < low || v > high)
    throw JsonFieldError(field_path(where, key) + ": " + std::to_string(v) + " is outside " + std::to_string(low) +
                         ".." + std::to_string(high));
  return static_cast<int>(v);
}

// A share or weight: NaN (null) or a finite number; shares in [0, 1] when `share`.
double measured(const nlohmann::json& j, const std::string& key, const std::string& where, bool share = false) {
  const double v = get_double(j, key, where);
  if (std::isinf(v) || (share && (v < 0.0 || v > 1.0)))
    throw JsonFieldError(field_path(where, key) + ": " + std::to_string(v) +
                         (share ? " is not a share in 0..1" : " is not finite"));
  return v;
}

constexpr int64_t kMaxCount = 1 << 20;

ExtremeTokenStats parse_stats(const nlohmann::json& j, const std::string& where) {
  ExtremeTokenStats s;
  s.seq_len = small_int(j, "seq_len", where, 1, kMaxCount);
  s.windows = small_int(j, "windows", where, 1, int64_t{1} << 30);
  s.eps = measured(j, "eps", where);
  s.uniform_baseline = measured(j, "uniform_baseline", where, true);
  const nlohmann::json& rates = get_array(j, "sink_rate", where);
  if (rates.size() != kFirstKeys)
    throw JsonFieldError(field_path(where, "sink_rate") + ": has " + std::to_string(rates.size()) +
                         " entries, expected " + std::to_string(kFirstKeys));
  for (size_t k = 0; k < rates.size(); ++k) {
    const nlohmann::json wrapped = {{"v", rates[k]}};
    s.sink_rate[k] = measured(wrapped, "v", field_path(where, "sink_rate[" + std::to_string(k) + "]"), true);
  }
  s.sink_rate_slot = measured(j, "sink_rate_slot", where, true);
  const nlohmann::json& heads = get_array(j, "heads", where);
  if (heads.empty() || heads.size() > static_cast<size_t>(kMaxCount))
    throw JsonFieldError(field_path(where, "heads") + ": has " + std::to_string(heads.size()) + " entries");
  for (size_t i = 0; i < heads.size(); ++i) {
    const std::string at = field_path(where, "heads[" + std::to_string(i) + "]");
    const nlohmann::json& h = heads[i];
    HeadExtremes e;
    e.layer = small_int(h, "layer", at, 0, kMaxCount);
    e.head = small_int(h, "head", at, 0, kMaxCount);
    const nlohmann::json& alpha = get_array(h, "alpha", at);
    if (alpha.size() != kFirstKeys)
      throw JsonFieldError(field_path(at, "alpha") + ": has " + std::to_string(alpha.size()) + " entries, expected " +
                           std::to_string(kFirstKeys));
    for (size_t k = 0; k < alpha.size(); ++k) {
      const nlohmann::json wrapped = {{"v", alpha[k]}};
      e.alpha[k] = measured(wrapped, "v", field_path(at, "alpha[" + std::to_string(k) + "]"));
    }
    e.alpha_slot = measured(h, "alpha_slot", at);
    e.value_drain = measured(h, "value_drain", at);
    e.key_norm_ratio = measured(h, "key_norm_ratio", at);
    e.key_cos_first = measured(h, "key_cos_first", at);
    e.key_cos_others = measured(h, "key_cos_others", at);
    s.heads.push_back(e);
  }
  const nlohmann::json& layers = get_array(j, "layers", where);
  if (layers.size() > static_cast<size_t>(kMaxCount))
    throw JsonFieldError(field_path(where, "layers") + ": has " + std::to_string(layers.size()) + " entries");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string at = field_path(where, "layers[" + std::to_string(i) + "]");
    const nlohmann::json& l = layers[i];
    LayerExtremes e;
    e.layer = small_int(l, "layer", at, 0, kMaxCount);
    e.median_abs = measured(l, "median_abs", at);
    e.max_abs = measured(l, "max_abs", at);
    e.massive_ratio = measured(l, "massive_ratio", at);
    e.max_position = small_int(l, "max_position", at, 0, kMaxCount);
    e.max_channel = small_int(l, "max_channel", at, 0, kMaxCount);
    e.residual_peak = measured(l, "residual_peak", at);
    const nlohmann::json& top = get_array(l, "top", at);
    if (top.size() > kTopActivations)
      throw JsonFieldError(field_path(at, "top") + ": has " + std::to_string(top.size()) + " entries, at most " +
                           std::to_string(kTopActivations));
    for (size_t t = 0; t < top.size(); ++t) {
      const std::string ta = field_path(at, "top[" + std::to_string(t) + "]");
      TopActivation a;
      a.position = small_int(top[t], "position", ta, 0, kMaxCount);
      a.channel = small_int(top[t], "channel", ta, 0, kMaxCount);
      a.mean_abs = measured(top[t], "mean_abs", ta);
      a.ratio = measured(top[t], "ratio", ta);
      e.top.push_back(a);
    }
    s.layers.push_back(std::move(e));
  }
  return s;
}

}  // namespace

nlohmann::json extreme_tokens_json(const ExtremeTokenReport& report) {
  nlohmann::json j = {{"eval", stats_json(report.eval)}};
  if (report.gu_bos) j["gu_bos"] = stats_json(*report.gu_bos);
  if (report.gu_no_bos) j["gu_no_bos"] = stats_json(*report.gu_no_bos);
  return j;
}

ExtremeTokenReport parse_extreme_tokens(const nlohmann::json& j, const std::string& where) {
  ExtremeTokenReport r;
  r.eval = parse_stats(member(j, "eval", where), field_path(where, "eval"));
  if (j.contains("gu_bos")) r.gu_bos = parse_stats(j.at("gu_bos"), field_path(where, "gu_bos"));
  if (j.contains("gu_no_bos")) r.gu_no_bos = parse_stats(j.at("gu_no_bos"), field_path(where, "gu_no_bos"));
  return r;
}

}  // namespace sinklab
