#pragma once
// Which N each length's pass measures, and for which probe.
#include <vector>

#include "probes/probe_results.h"
#include "probes/probe_settings.h"

namespace sinklab::probes {

// The passes and entries for settings over lengths (ascending): every L gets N = 5 (distance_vs_L) and
// P3's grid; L max also gets --N (distance_vs_N) and --N <= 64 (separability). E_mc is computed for the
// distance files' N, and for every N with --expectation mc.
std::vector<LengthPlan> plan_lengths(const std::vector<int>& lengths, const ProbeSettings& settings);

}  // namespace sinklab::probes
