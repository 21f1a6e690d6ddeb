#include "sweep/compare_sets.h"

#include "sweep/sweep_error.h"

namespace sinklab::sweep {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Where the sweep file itself gives `key`, as "grid key at s.yaml:7"; empty when it does not.
std::string sweep_origin(const SweepSpec& spec, const std::string& key) {
  const std::string file = spec.source.string();
  for (const auto& axis : spec.grid)
    if (axis.key == key) return "grid key at " + file + ":" + std::to_string(axis.line);
  for (const auto& variant : spec.variants)
    for (const auto& o : variant.set)
      if (o.key == key) return "set by variant '" + variant.name + "' at " + file + ":" + std::to_string(o.line);
  return "";
}

}  // namespace

std::vector<Override> parse_compare_sets(const std::vector<std::string>& texts, const SweepSpec& spec) {
  std::vector<Override> sets;
  for (const auto& text : texts) {
    const auto eq = text.find('=');
    const std::string key = trimmed(text.substr(0, eq));
    if (eq == std::string::npos || key.empty())
      throw SweepError("--set " + text + ": expected KEY=VALUE, e.g. --set train.max_steps=200");
    if (const std::string origin = sweep_origin(spec, key); !origin.empty())
      throw SweepError("--set " + text + ": the sweep itself gives " + key + " (" + origin +
                       "); a --set for every run would undo what it compares: change the sweep file instead");
    sets.push_back({key, text.substr(eq + 1), 0});
  }
  return sets;
}

void apply_compare_sets(const std::vector<Override>& sets, std::vector<PlannedRun>& runs) {
  for (auto& run : runs) run.overrides.insert(run.overrides.end(), sets.begin(), sets.end());
}

std::string describe_compare_sets(const std::vector<std::string>& texts) {
  if (texts.empty()) return "no --set";
  std::string text;
  for (const auto& t : texts) text += (text.empty() ? "--set " : " --set ") + t;
  return text;
}

}  // namespace sinklab::sweep
