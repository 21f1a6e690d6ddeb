#include "report/zoo_run_facts.h"

#include <fstream>

namespace sinklab {
namespace {

using namespace json_fields;

// A statistic that may be missing: NaN when absent or null.
double optional_number(const nlohmann::json& head, const char* key, const std::string& where) {
  const auto it = head.find(key);
  if (it == head.end() || it->is_null()) return kNotRecorded;
  return get_double(head, key, where);
}

std::vector<double> optional_numbers(const nlohmann::json& head, const char* key, const std::string& where) {
  std::vector<double> out;
  const auto it = head.find(key);
  if (it == head.end() || it->is_null()) return out;
  if (!it->is_array()) throw JsonFieldError(field_path(where, key) + ": expected an array of numbers, got " + it->type_name());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& value = (*it)[i];
    if (value.is_null()) out.push_back(kNotRecorded);
    else if (value.is_number()) out.push_back(value.get<double>());
    else throw JsonFieldError(field_path(where, std::string(key) + "[" + std::to_string(i) + "]") + ": expected a number, got " + value.type_name());
  }
  return out;
}

}  // namespace

ZooRunFacts zoo_run_facts(const RunSummary& summary, const nlohmann::json& json) {
  ZooRunFacts facts;
  facts.seed = summary.seed;
  facts.stopped = summary.reached_stop_rule;
  facts.stop_reason = summary.stop_reason;
  facts.steps = summary.steps;
  facts.eval_max_abs_error = summary.eval_max_abs_error;
  facts.layers = summary.layers;
  facts.heads_per_layer = summary.heads_per_layer;
  facts.seq_len = summary.seq_len;
  facts.eval_trigger = summary.eval_trigger;
  const nlohmann::json* heads = json.is_object() && json.contains("heads") && json["heads"].is_array() ? &json["heads"] : nullptr;
  for (std::size_t i = 0; i < summary.heads.size(); ++i) {
    const HeadSinkStats& stats = summary.heads[i];
    ZooHeadFacts h;
    h.layer = stats.layer;
    h.head = stats.head;
    h.bos_nontrigger = stats.bos_mass_nontrigger_mean;
    h.mass_nontrigger = stats.mass_nontrigger_mean;
    h.sink_score = stats.sink_score;
    h.content_nontrigger = stats.nonbos_mass_nontrigger_mean;  // the same number under its older name
    if (heads && i < heads->size() && (*heads)[i].is_object()) {
      const nlohmann::json& j = (*heads)[i];
      const std::string where = "heads[" + std::to_string(i) + "]";
      if (j.contains("content_mass_nontrigger_mean")) h.content_nontrigger = optional_number(j, "content_mass_nontrigger_mean", where);
      h.virtual_nontrigger = optional_number(j, "virtual_mass_nontrigger_mean", where);
      h.effective_content = optional_number(j, "effective_content_mass", where);
      h.value_weighted_bos = optional_number(j, "value_weighted_bos_share", where);
      h.sink_score_abs = optional_number(j, "sink_score_abs", where);
      h.gate_nontrigger = optional_number(j, "gate_nontrigger_mean", where);
      h.onset_50 = optional_number(j, "sink_onset_step_50", where);
      h.onset_90 = optional_number(j, "sink_onset_step_90", where);
      h.bos_by_row = optional_numbers(j, "bos_mass_by_row", where);
    }
    facts.heads.push_back(std::move(h));
  }
  return facts;
}

ZooRunFacts read_zoo_run_facts(const RunSummary& summary, const std::filesystem::path& run_dir) {
  const auto path = run_dir / "summary.json";
  std::ifstream in(path);
  if (!in) throw RunFileError(path.string() + ": cannot open (missing or unreadable)");
  const nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw RunFileError(path.string() + ": invalid JSON");
  try {
    return zoo_run_facts(summary, json);
  } catch (const JsonFieldError& e) {
    throw RunFileError(path.string() + ": " + e.what());
  }
}

}  // namespace sinklab
