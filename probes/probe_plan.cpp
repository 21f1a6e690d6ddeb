#include "probes/probe_plan.h"

#include <map>

namespace sinklab::probes {

std::vector<LengthPlan> plan_lengths(const std::vector<int>& lengths, const ProbeSettings& settings) {
  std::vector<LengthPlan> plans;
  const int max_len = lengths.back();
  for (const int L : lengths) {
    std::map<int, NEntry> by_n;
    const auto entry = [&](int N) -> NEntry& {
      NEntry& e = by_n[N];
      e.N = N;
      e.monte_carlo = e.monte_carlo || settings.expectation == ExpectationKind::mc;
      return e;
    };
    if (5 < L) {
      NEntry& e = entry(5);
      e.distance_file = e.monte_carlo = true;
    }
    for (const int N : critical_n_grid(L)) entry(N).critical = true;
    if (L == max_len)
      for (const int N : settings.n_values) {
        if (N >= L) continue;
        NEntry& e = entry(N);
        e.distance_file = e.monte_carlo = true;
        if (N <= 64) e.separability = true;
      }
    LengthPlan plan{L, {}};
    for (const auto& [N, e] : by_n) plan.entries.push_back(e);
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace sinklab::probes
