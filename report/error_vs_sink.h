#pragma once
// Theorem 1's trade-off as a measurement (docs/reproducing-sinks.md, "Error against sink"): how far a
// softmax model's sink is from complete (1 - min BOS@nt: the least BOS weight over the no-op rows) against
// its evaluation error eta (max |pred - y|). The theorem predicts 1 - BOS_min <= 2 eta; the softmax
// construction sits on the line 1 - BOS_min = (15/14) eta at d = L = 16, j = 7.
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "stats/head_statistics.h"

namespace sinklab {

struct ErrorSinkPoint {
  std::string name;         // the run id, or "construction beta=5"
  double setting = 0.0;     // the run's stop threshold (train.stop_max_abs_error), or the construction's beta
  bool stopped = true;      // a trained run that met its stop rule (constructions: true)
  double eta = 0.0;         // evaluation max |pred - y| over every row
  double eta_no_op = 0.0;   // ... over the no-op rows only: the error the sink exists to prevent
  double sink_gap = 0.0;    // 1 - min over no-op rows of the BOS mass, for the head where that min is largest
};

// 1 - max over heads of (min over rows 1..T-1 except eval_trigger of bos_mass_by_row). NaN when no head
// has per-row masses.
double sink_gap(const std::vector<HeadSinkStats>& heads, int eval_trigger);

// Least squares of log(sink_gap) on log(error) over points with both > 0 (error = eta or eta_no_op).
struct LogLogFit {
  int points = 0;
  double slope = 0.0, intercept = 0.0, slope_standard_error = 0.0;
};
LogLogFit fit_log_log(const std::vector<ErrorSinkPoint>& points, double ErrorSinkPoint::*error);

// The markdown tables: trained runs grouped by stop threshold (runs, stopped, mean eta and eta_no_op,
// mean gap, the ranges of gap / eta and gap / eta_no_op, how many keep gap <= 2 eta), the constructions
// one row per beta, and both log-log fits.
std::string error_vs_sink_markdown(const std::vector<ErrorSinkPoint>& trained,
                                   const std::vector<ErrorSinkPoint>& constructions);

// <dir>/error_vs_sink.{csv,md,gp} and error_vs_sink_{stopped,capped,construction}.dat: every point, the tables, and a
// log-log figure (two panels: against eta and against eta_no_op) of the trained runs, the construction's curve and the
// bound gap = 2 eta. Files are written whole (temp file, rename).
void write_error_vs_sink(const std::filesystem::path& dir, const std::vector<ErrorSinkPoint>& trained,
                         const std::vector<ErrorSinkPoint>& constructions);

}  // namespace sinklab
