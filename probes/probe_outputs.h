#pragma once
// The probes' files in one output folder, each written to a temporary name and renamed:
// vanishing.csv (P1), distance_vs_L.csv and distance_vs_N.csv (P2), critical_n.csv and
// critical_n_summary.csv (P3), separability.csv (P4), gradient.csv (P5), probes.md (every claim of the
// paper beside ours, P6, the invariant counters) and figures/*.gp rendered to PNG when gnuplot exists.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "probes/probe_results.h"

namespace sinklab::normlimits {

struct ProbeContext {
  std::string model_name;  // "synthetic" or the run folder
  RowKind rows;
  double seconds = 0.0;    // wall time of the probes (forward passes included)
  std::string command;     // the command line, for probes.md
};

// Per-head means over every window's rows of one entry (NaN where the head had no row).
struct HeadMeans {
  int layer = 0, head = 0;
  double d_true = NAN, d_r2 = NAN, d_max = NAN, e_main = NAN, e_up = NAN, e_mc = NAN, separability = NAN;
  int64_t rows = 0;
};
std::vector<HeadMeans> head_means(const ProbeResults& r, int plan, int entry);

// The critical N of one length: the first N of P3's grid whose KS p-value exceeds alpha (0 if none).
struct CriticalRow {
  int L = 0, N = 0, heads = 0;
  double statistic = 0, p_value = 0;
  bool exact = true;
};
std::vector<CriticalRow> critical_rows(const ProbeResults& r, const ProbeSettings& s);

// `gnuplot` is the command the figures are rendered with (report/gnuplot_runner.h).
void write_probe_outputs(const ProbeResults& r, const ProbeSettings& s, const ProbeContext& context,
                         const std::filesystem::path& out, const std::string& gnuplot, std::ostream& log);

}  // namespace sinklab::normlimits
