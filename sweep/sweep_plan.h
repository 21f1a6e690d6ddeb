#pragma once
// Expansion of a sweep into its runs: every variant crossed with the cartesian product of the grid.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_spec.h"

namespace sinklab::sweep {

struct PlannedRun {
  std::string id;            // unique, filesystem-safe: label parts and seed joined by '_'
  std::string label;         // aggregation label: "name, k=v, ..." (variant name, then the value of every
                             // non-seed grid axis with more than one value); just "k=v, ..." when the
                             // sweep has one variant
  std::string variant_name;  // the sweep variant it comes from
  std::optional<std::int64_t> seed;  // from the grid or the variant's set; empty if neither sets it
  std::vector<Override> overrides;   // the variant's set, then one value per grid axis, then compare --set
  std::filesystem::path config;
  std::string sink_class, predicted;  // the variant's (empty when it gives none)
  int max_steps = 0;                  // train.max_steps of its config (validate_sweep); 0 = not known
};

// The most runs one sweep may expand to (variants x product of grid sizes). A grid beyond it is a
// mistake (10^9 runs would take years) and would exhaust memory while being expanded.
inline constexpr std::size_t kMaxSweepRuns = 100000;

// Order: variants in file order; inside a variant, grid axes nest in file order with the last axis
// varying fastest (like nested loops written top to bottom). Throws SweepError, before expanding
// anything, when the sweep would have more than kMaxSweepRuns runs; and when two runs would get the
// same id or an id is longer than kMaxNameBytes.
std::vector<PlannedRun> expand_sweep(const SweepSpec& spec);

}  // namespace sinklab::sweep
