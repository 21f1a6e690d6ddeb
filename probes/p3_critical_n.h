#pragma once
// Probe P3, how many tokens a head can select before its distance is that of a random selection: per
// L and N of the grid (critical_n_grid), a two-sample KS test of P2's per-head means of d_true (or d_r2)
// against E_main (or E_mc); N_crit is the first N with p > alpha. Collects nothing of its own. Writes
// critical_n.csv, critical_n_summary.csv and figures/critical_n.gp.
#include <vector>

#include "probes/probe_registration.h"

namespace sinklab::probes {

// The KS test of one (L, N) of the grid over the heads with both means.
struct CriticalRow {
  int L = 0, N = 0, heads = 0;
  double statistic = 0, p_value = 0;
  bool exact = true;
};
std::vector<CriticalRow> critical_rows(const ProbeResults& r, const ProbeSettings& s);

ProbeRegistration critical_n_probe();

}  // namespace sinklab::probes
