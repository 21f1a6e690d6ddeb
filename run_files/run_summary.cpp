#include "run_files/run_summary.h"

#include "run_files/extreme_tokens_json.h"

#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "stats/sink_statistics.h"

namespace sinklab {
namespace {

using namespace json_fields;

int get_small_int(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const int64_t v = get_int(j, key, where);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw JsonFieldError(field_path(where, key) + ": value " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

// The keys of a head's evaluation-only facts (summary.json, not metrics.jsonl).
constexpr const char* kBosMassByRow = "bos_mass_by_row";
constexpr const char* kOnset50 = "sink_onset_step_50";
constexpr const char* kOnset90 = "sink_onset_step_90";

// Which form of a head object: per logged step (the statistics) or the evaluation's in summary.json
// (the statistics, bos_mass_by_row and the sink onset steps).
enum class HeadForm { step, evaluation };

nlohmann::json head_json(const HeadSinkStats& s, HeadForm form) {
  nlohmann::json j = {{"layer", s.layer}, {"head", s.head}};
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (stat.is_flag())
      j[stat.name] = s.*stat.flag;
    else
      j[stat.name] = s.*stat.number;  // NaN is written as null
  }
  if (form == HeadForm::evaluation) {
    if (!s.bos_mass_by_row.empty()) j[kBosMassByRow] = s.bos_mass_by_row;  // empty: unknown, left out
    const auto step_or_null = [](const std::optional<int64_t>& step) {
      return step ? nlohmann::json(*step) : nlohmann::json();
    };
    j[kOnset50] = step_or_null(s.sink_onset_step_50);
    j[kOnset90] = step_or_null(s.sink_onset_step_90);
  }
  return j;
}

nlohmann::json heads_json(const std::vector<HeadSinkStats>& heads, HeadForm form) {
  nlohmann::json array = nlohmann::json::array();
  for (const HeadSinkStats& h : heads) array.push_back(head_json(h, form));
  return array;
}

// Absent (a file from before these facts) or null: none.
std::optional<int64_t> optional_step(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return get_int(j, key, where);
}

std::vector<double> number_array(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& array = get_array(j, key, where);
  std::vector<double> out;
  out.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    const nlohmann::json& v = array[i];
    if (!v.is_null() && !v.is_number())
      throw JsonFieldError(field_path(where, std::string(key) + "[" + std::to_string(i) + "]") +
                           ": expected a number, got " + v.type_name());
    out.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
  }
  return out;
}

HeadSinkStats parse_head(const nlohmann::json& j, const std::string& where) {
  HeadSinkStats s;
  s.layer = get_small_int(j, "layer", where);
  s.head = get_small_int(j, "head", where);
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (stat.in_files == InFiles::null_when_absent && j.is_object() && !j.contains(stat.name)) {
      s.*stat.number = std::numeric_limits<double>::quiet_NaN();  // a file from before the statistic
      continue;
    }
    if (stat.is_flag())
      s.*stat.flag = get_bool(j, stat.name, where);
    else
      s.*stat.number = get_double(j, stat.name, where);
  }
  // Evaluation-only facts, absent from metrics lines and from files written before them.
  if (j.contains(kBosMassByRow) && !j[kBosMassByRow].is_null())
    s.bos_mass_by_row = number_array(j, kBosMassByRow, where);
  s.sink_onset_step_50 = optional_step(j, kOnset50, where);
  s.sink_onset_step_90 = optional_step(j, kOnset90, where);
  return s;
}

std::vector<HeadSinkStats> parse_heads(const nlohmann::json& j, const std::string& where) {
  const nlohmann::json& array = get_array(j, "heads", where);
  std::vector<HeadSinkStats> heads;
  heads.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i)
    heads.push_back(parse_head(array[i], field_path(where, "heads[" + std::to_string(i) + "]")));
  return heads;
}

std::string error_text(const std::exception& e) { return e.what(); }

// The numbers of one list of stats/run_numbers.h: every ALWAYS one (NaN as null), the WHEN_DEFINED ones
// that are set.
template <typename Holder, size_t N>
void write_numbers(nlohmann::json& j, const Holder& h, const std::array<RunNumber<Holder>, N>& numbers) {
  for (const RunNumber<Holder>& n : numbers) {
    if (!n.optional()) j[n.name] = h.*n.always;
    else if (h.*n.when_defined) j[n.name] = *(h.*n.when_defined);
  }
}

// An ALWAYS number must be present (null reads as NaN); a WHEN_DEFINED one is read when present.
template <typename Holder, size_t N>
void read_numbers(const nlohmann::json& j, Holder& h, const std::array<RunNumber<Holder>, N>& numbers) {
  for (const RunNumber<Holder>& n : numbers) {
    if (!n.optional()) h.*n.always = get_double(j, n.name, "");
    else if (j.contains(n.name)) h.*n.when_defined = get_double(j, n.name, "");
  }
}

// Far above any summary this trainer writes (a few KB per head), low enough that a corrupt or
// foreign file cannot make a report allocate gigabytes.
constexpr uint64_t kMaxSummaryBytes = 64u << 20;
// The longest sequence a report accepts: its uniform-causal baseline loops over T.
constexpr int kMaxSeqLen = 1 << 20;

}  // namespace

void to_json(nlohmann::json& j, const HeadSinkStats& s) { j = head_json(s, HeadForm::step); }

void from_json(const nlohmann::json& j, HeadSinkStats& s) { s = parse_head(j, ""); }

void to_json(nlohmann::json& j, const RunSummary& s) {
  j = nlohmann::json{{"name", s.name},
                     {"seed", s.seed},
                     {"steps", s.steps},
                     {"stop_reason", s.stop_reason},
                     {"non_finite", s.non_finite},
                     {"reached_stop_rule", s.reached_stop_rule},
                     {"normalizer", s.normalizer},
                     {"layers", s.layers},
                     {"heads_per_layer", s.heads_per_layer},
                     {"seq_len", s.seq_len},
                     {"eval_trigger", s.eval_trigger},
                     {"sink_eps", s.sink_eps},
                     {"threads", s.threads},
                     {"git_revision", s.git_revision},
                     {"heads", heads_json(s.heads, HeadForm::evaluation)}};
  write_numbers(j, s, kRunSummaryNumbers);
  if (!s.task_baselines.empty()) {
    nlohmann::json baselines = nlohmann::json::object();
    for (const auto& [name, value] : s.task_baselines) baselines[name] = value;
    j["task_baselines"] = baselines;
  }
  if (s.extreme_tokens) j["extreme_tokens"] = extreme_tokens_json(*s.extreme_tokens);
  if (s.time_seconds) j["time_seconds"] = run_times_json(*s.time_seconds);
}

namespace {

// Extreme-token statistics must describe this run's heads (reports index them by layer and head).
void check_extreme_tokens(const ExtremeTokenReport& r, int layers, int heads_per_layer) {
  for (const auto& [key, stats] : {std::pair{"eval", &r.eval}, std::pair{"gu_bos", r.gu_bos ? &*r.gu_bos : nullptr},
                                   std::pair{"gu_no_bos", r.gu_no_bos ? &*r.gu_no_bos : nullptr}}) {
    if (!stats) continue;
    const std::string at = std::string("extreme_tokens.") + key;
    if (static_cast<int64_t>(stats->heads.size()) != static_cast<int64_t>(layers) * heads_per_layer)
      throw JsonFieldError(at + ".heads: has " + std::to_string(stats->heads.size()) +
                           " entries, expected layers * heads_per_layer");
    for (size_t i = 0; i < stats->heads.size(); ++i)
      if (stats->heads[i].layer != static_cast<int>(i) / heads_per_layer ||
          stats->heads[i].head != static_cast<int>(i) % heads_per_layer)
        throw JsonFieldError(at + ".heads[" + std::to_string(i) + "]: expected layer-major order");
    if (stats->layers.size() > static_cast<size_t>(layers))
      throw JsonFieldError(at + ".layers: has " + std::to_string(stats->layers.size()) +
                           " entries, more than the run's layers");
    for (const LayerExtremes& l : stats->layers)
      if (l.layer >= layers)
        throw JsonFieldError(at + ".layers: layer " + std::to_string(l.layer) + " is not one of the run's");
  }
}

}  // namespace

void from_json(const nlohmann::json& j, RunSummary& s) {
  RunSummary r;
  r.name = get_string(j, "name", "");
  r.seed = get_uint(j, "seed", "");
  r.steps = get_int(j, "steps", "");
  r.stop_reason = get_string(j, "stop_reason", "");
  if (j.contains("non_finite")) r.non_finite = get_string(j, "non_finite", "");  // absent before format 2
  r.reached_stop_rule = get_bool(j, "reached_stop_rule", "");
  read_numbers(j, r, kRunSummaryNumbers);
  if (j.contains("task_baselines")) {
    const auto& b = j.at("task_baselines");
    if (!b.is_object()) throw JsonFieldError("task_baselines: expected an object of numbers");
    for (const auto& [name, value] : b.items())
      r.task_baselines.emplace_back(name, get_double(b, name, "task_baselines"));
  }
  r.normalizer = get_string(j, "normalizer", "");
  r.layers = get_small_int(j, "layers", "");
  r.heads_per_layer = get_small_int(j, "heads_per_layer", "");
  r.seq_len = get_small_int(j, "seq_len", "");
  r.eval_trigger = get_small_int(j, "eval_trigger", "");
  r.sink_eps = get_double(j, "sink_eps", "");
  r.threads = get_small_int(j, "threads", "");
  r.git_revision = get_string(j, "git_revision", "");
  r.heads = parse_heads(j, "");
  if (r.seq_len < 1 || r.seq_len > kMaxSeqLen)
    throw JsonFieldError("seq_len: " + std::to_string(r.seq_len) + " is outside 1.." + std::to_string(kMaxSeqLen));
  // Squared errors and losses cannot be negative: such a file was not written by a run (reports average them).
  for (const auto& [key, value] :
       {std::pair{"eval_mse", r.eval_mse}, std::pair{"eval_max_abs_error", r.eval_max_abs_error},
        std::pair{"train_loss", r.train_loss}})
    if (value < 0) throw JsonFieldError(std::string(key) + ": " + std::to_string(value) + " is negative");
  if (r.steps < 0) throw JsonFieldError("steps: " + std::to_string(r.steps) + " is negative");
  if (r.diverged()) {  // a diverged run has no statistics to report
    if (!r.heads.empty())
      throw JsonFieldError("heads: a diverged run (stop_reason non_finite) has no statistics, got " +
                           std::to_string(r.heads.size()) + " entries");
    s = std::move(r);
    return;
  }
  // Reports index heads by (layer, head): the list must be complete and layer-major.
  if (r.layers < 1 || r.heads_per_layer < 1)
    throw JsonFieldError("layers and heads_per_layer must be >= 1 (got " + std::to_string(r.layers) + ", " +
                         std::to_string(r.heads_per_layer) + ")");
  // 64-bit: two int fields near 2^31 must not wrap into a plausible-looking count.
  const int64_t expected = static_cast<int64_t>(r.layers) * r.heads_per_layer;
  if (static_cast<int64_t>(r.heads.size()) != expected)
    throw JsonFieldError("heads: has " + std::to_string(r.heads.size()) +
                         " entries, expected layers * heads_per_layer = " + std::to_string(expected));
  for (size_t i = 0; i < r.heads.size(); ++i) {
    if (r.heads[i].layer != static_cast<int>(i) / r.heads_per_layer ||
        r.heads[i].head != static_cast<int>(i) % r.heads_per_layer)
      throw JsonFieldError("heads[" + std::to_string(i) + "]: is (layer " + std::to_string(r.heads[i].layer) +
                           ", head " + std::to_string(r.heads[i].head) + "), expected layer-major order");
    // Reports index it by row.
    const size_t rows = r.heads[i].bos_mass_by_row.size();
    if (rows != 0 && rows != static_cast<size_t>(r.seq_len))
      throw JsonFieldError("heads[" + std::to_string(i) + "]." + kBosMassByRow + ": has " + std::to_string(rows) +
                           " entries, expected seq_len = " + std::to_string(r.seq_len));
  }
  if (j.contains("extreme_tokens")) {
    r.extreme_tokens = parse_extreme_tokens(j.at("extreme_tokens"), "extreme_tokens");
    check_extreme_tokens(*r.extreme_tokens, r.layers, r.heads_per_layer);
  }
  if (j.contains("time_seconds")) r.time_seconds = parse_run_times(j.at("time_seconds"), "time_seconds");
  // A file written before the sink-head rule read the sink mass: its verdicts follow the rule now.
  if (apply_sink_head_rule(r.heads, r.sink_eps)) r.sink_rate = sink_rate(r.heads);
  s = std::move(r);
}

void to_json(nlohmann::json& j, const MetricsRecord& r) {
  j = nlohmann::json{{"step", r.step}, {"heads", heads_json(r.heads, HeadForm::step)}};
  write_numbers(j, r, kMetricsRecordNumbers);
  if (r.extreme_tokens) j["extreme_tokens"] = extreme_tokens_json(*r.extreme_tokens);
}

void from_json(const nlohmann::json& j, MetricsRecord& r) {
  MetricsRecord m;
  m.step = get_int(j, "step", "");
  read_numbers(j, m, kMetricsRecordNumbers);
  m.heads = parse_heads(j, "");
  if (j.contains("extreme_tokens")) m.extreme_tokens = parse_extreme_tokens(j.at("extreme_tokens"), "extreme_tokens");
  r = std::move(m);
}

void write_run_summary(const std::filesystem::path& path, const RunSummary& summary) {
  write_file_atomically(path, nlohmann::json(summary).dump(2) + '\n');
}

RunSummary read_run_summary(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw RunFileError(path.string() + ": cannot open (missing or unreadable)");
  std::string text;
  try {
    text = read_regular_file(path, kMaxSummaryBytes, "summary");
  } catch (const FileReadError& e) {
    throw RunFileError(error_text(e));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw RunFileError(path.string() + ": invalid JSON: " + error_text(e));
  }
  try {
    return j.get<RunSummary>();
  } catch (const JsonFieldError& e) {
    throw RunFileError(path.string() + ": " + error_text(e));
  }
}

void write_metrics_line(std::ostream& out, const MetricsRecord& record) {
  out << nlohmann::json(record).dump() << '\n';
}

}  // namespace sinklab
