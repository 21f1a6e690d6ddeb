#pragma once
// Probe P4, how much of the top-N set is geometrically separable: N_s / N on the unit-normalized
// vectors a_k x_k / |x_k| (separability.h) for --N <= 64 at the longest L, with the invariant that one
// selected key is always separable. Writes separability.csv and figures/separability.gp.
#include <utility>
#include <vector>

#include "probes/probe_registration.h"

namespace sinklab::probes {

// (N, median over heads of N_s / N) for each N of separability.csv (P6 reads N = 16).
std::vector<std::pair<int, double>> separability_medians(const ProbeResults& r);
double separability_median_at(const std::vector<std::pair<int, double>>& medians, int N);  // NaN: not measured

ProbeRegistration separability_probe();

}  // namespace sinklab::probes
