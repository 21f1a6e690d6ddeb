#include "sweep/sweep_plan.h"

#include <charconv>
#include <map>

#include "sweep/run_naming.h"
#include "sweep/sweep_error.h"

namespace sinklab::sweep {
namespace {

constexpr const char* kSeedKey = "seed";

// Labels use the last path component ("optimizer.lr" -> "lr") unless two grid keys share it.
std::vector<std::string> short_names(const std::vector<GridAxis>& grid) {
  auto last = [](const std::string& key) { return key.substr(key.rfind('.') + 1); };
  std::map<std::string, int> count;
  for (const auto& axis : grid) ++count[last(axis.key)];
  std::vector<std::string> names;
  for (const auto& axis : grid) names.push_back(count[last(axis.key)] > 1 ? axis.key : last(axis.key));
  return names;
}

std::optional<std::int64_t> parse_seed(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, value);
  if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return value;
}

// Next grid combination, last axis fastest; false after the last one.
bool advance(std::vector<std::size_t>& choice, const std::vector<GridAxis>& grid) {
  for (std::size_t a = choice.size(); a-- > 0;) {
    if (++choice[a] < grid[a].values.size()) return true;
    choice[a] = 0;
  }
  return false;
}

// Refuses a sweep with more than kMaxSweepRuns runs. The count saturates instead of overflowing: every
// axis has at least one value, so once past the limit it only grows.
std::size_t check_run_count(const SweepSpec& spec) {
  std::size_t count = spec.variants.size();
  bool overflow = false;
  std::string factors = std::to_string(spec.variants.size()) + (spec.variants.size() == 1 ? " variant" : " variants");
  for (const auto& axis : spec.grid) {
    overflow = overflow || __builtin_mul_overflow(count, axis.values.size(), &count);
    factors += " x " + axis.key + " (" + std::to_string(axis.values.size()) + " values)";
  }
  if (!overflow && count <= kMaxSweepRuns) return count;
  throw SweepError(spec.source.string() + ": the sweep expands to " +
                   (overflow ? std::string("more than 2^64") : std::to_string(count)) + " runs (" + factors +
                   "); a sweep may have at most " + std::to_string(kMaxSweepRuns) +
                   " runs: shorten the grid lists or split it into several sweep files");
}

int variant_line(const SweepSpec& spec, const std::string& name) {
  for (const auto& v : spec.variants)
    if (v.name == name) return v.line;
  return 1;
}

}  // namespace

std::vector<PlannedRun> expand_sweep(const SweepSpec& spec) {
  const std::size_t count = check_run_count(spec);
  const auto names = short_names(spec.grid);
  std::vector<PlannedRun> runs;
  runs.reserve(count);
  std::map<std::string, std::string> owner_of_id;  // id -> description, to explain collisions
  // A label says what differs between variants: with a single variant its name is the same for every
  // run, and so is the value of a one-value grid axis; both are left out (the name stays when nothing
  // else is left).
  const bool name_in_label = spec.variants.size() > 1;
  for (const auto& variant : spec.variants) {
    std::vector<std::size_t> choice(spec.grid.size(), 0);  // odometer over the grid axes
    do {
      PlannedRun run;
      run.variant_name = variant.name;
      run.config = variant.config;
      run.overrides = variant.set;
      run.sink_class = variant.sink_class;
      run.predicted = variant.predicted;
      std::string values;  // non-seed grid values, "lr=3e-4, layers=2"
      std::string id = variant.name;
      for (const auto& o : variant.set)
        if (o.key == kSeedKey) run.seed = parse_seed(o.value);
      std::string seed_text;
      for (std::size_t a = 0; a < spec.grid.size(); ++a) {
        const GridAxis& axis = spec.grid[a];
        const std::string& value = axis.values[choice[a]];
        run.overrides.push_back(Override{axis.key, value, axis.line});
        if (axis.key == kSeedKey) {
          run.seed = parse_seed(value);
          seed_text = value;
          continue;
        }
        const std::string part = names[a] + "=" + compact_value(value);
        if (axis.values.size() > 1) values += (values.empty() ? "" : ", ") + part;
        id += "_" + part;  // ids keep what labels drop: run folders of earlier sweeps must still match
      }
      if (values.empty()) run.label = variant.name;
      else run.label = name_in_label ? variant.name + ", " + values : values;
      if (run.seed) seed_text = std::to_string(*run.seed);
      if (!seed_text.empty()) id += "_seed=" + seed_text;
      run.id = sanitize_for_path(id);
      if (run.id.size() > kMaxNameBytes)
        throw SweepError(spec.source.string() + ":" + std::to_string(variant_line(spec, variant.name)) +
                         ": the run folder name '" + run.id + "' has " + std::to_string(run.id.size()) +
                         " bytes; run folder names (variant name, grid values and seed) may have at most " +
                         std::to_string(kMaxNameBytes) + " bytes: shorten the variant name or the grid values");
      const std::string description = run.label + (seed_text.empty() ? "" : ", seed=" + seed_text);
      if (auto [it, fresh] = owner_of_id.emplace(run.id, description); !fresh)
        throw SweepError(spec.source.string() + ": runs '" + it->second + "' and '" + description +
                         "' would share the run folder '" + run.id + "'; make their values distinct");
      runs.push_back(std::move(run));
    } while (advance(choice, spec.grid));
  }
  return runs;
}

}  // namespace sinklab::sweep
