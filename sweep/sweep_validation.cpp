#include "sweep/sweep_validation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "config_loading/memory_estimate.h"

#include "sweep/sweep_error.h"

namespace sinklab::sweep {
namespace {

// Where an override of `run` was written in the sweep file, and how to call it in a message.
struct OverrideOrigin {
  int line = 0;
  std::string what;  // "grid key 'optimizer.lr'" or "set key 'model.heads'"
};

OverrideOrigin origin_of(const SweepSpec& spec, const Override& o) {
  for (const auto& axis : spec.grid)
    if (axis.key == o.key) return {o.line, "grid key '" + o.key + "' = " + o.value};
  return {o.line, "set key '" + o.key + "' = " + o.value};
}

std::string config_error_message(const SweepSpec& spec, const PlannedRun& run, const ConfigError& e) {
  const std::string variant = "variant '" + run.variant_name + "' (config " + run.config.string() + ")";
  // The loader names an override by its origin "--set key=value"; map it back to the sweep file line.
  for (const auto& o : run.overrides) {
    if (e.source() != "--set " + o.key + "=" + o.value) continue;
    const std::string detail = " for " + variant + ": " + (e.key().empty() ? "" : e.key() + ": ") + e.detail();
    if (o.line == 0) return "--set " + o.key + "=" + o.value + detail;  // from the command line (compare_sets.h)
    const OverrideOrigin origin = origin_of(spec, o);
    return spec.source.string() + ":" + std::to_string(origin.line) + ": " + origin.what + detail;
  }
  // The config file itself (or a default) is at fault: its own location is in e.what().
  const Variant* v = nullptr;
  for (const auto& candidate : spec.variants)
    if (candidate.name == run.variant_name) v = &candidate;
  return spec.source.string() + ":" + std::to_string(v ? v->line : 0) + ": " + variant + " does not load: " + e.what();
}

}  // namespace

std::vector<std::string> override_strings(const PlannedRun& run) {
  std::vector<std::string> out;
  for (const auto& o : run.overrides) out.push_back(o.key + "=" + o.value);
  return out;
}

void validate_sweep(const SweepSpec& spec, std::vector<PlannedRun>& runs, const ConfigVocabulary& vocab, int jobs) {
  std::vector<double> estimates;
  for (auto& run : runs) {
    try {
      const RunConfig config = load_run_config(run.config, override_strings(run), vocab);
      if (!run.seed) run.seed = static_cast<std::int64_t>(config.seed);
      run.max_steps = config.train.max_steps;
      estimates.push_back(estimate_memory(config).total());
    } catch (const ConfigError& e) {
      throw SweepError(config_error_message(spec, run, e));
    }
  }
  // Each run fits alone (the loader checked); `jobs` of them run side by side.
  const auto together = static_cast<std::size_t>(std::clamp<int>(jobs, 1, static_cast<int>(estimates.size())));
  if (together < 2) return;
  std::partial_sort(estimates.begin(), estimates.begin() + static_cast<std::ptrdiff_t>(together), estimates.end(),
                    std::greater<>());
  const double needed =
      std::accumulate(estimates.begin(), estimates.begin() + static_cast<std::ptrdiff_t>(together), 0.0);
  const std::optional<double> available = available_memory();
  if (available && needed > *available)
    throw SweepError(spec.source.string() + ": --jobs " + std::to_string(together) + ": the " +
                     std::to_string(together) + " largest runs side by side need an estimated " + format_bytes(needed) +
                     ", more than the " + format_bytes(*available) + " available; lower --jobs");
}

}  // namespace sinklab::sweep
