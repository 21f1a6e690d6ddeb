#pragma once
// The report's tables, built from loaded runs: one row per run (summary.csv), one row per variant
// with mean and 95% CI over seeds (summary.md, index.html, and a compact terminal version), and a
// long per-head table that stays readable for 4x4 models. Shares in [0, 1] (BOS mass, row mass, sink
// score, sink excess, accuracy) take a percentile-bootstrap interval, [lo, hi], that keeps their range;
// unbounded numbers (loss, MSE, steps, time) mean +/- t s / sqrt(n).
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/confidence_interval.h"
#include "report/proportion_interval.h"
#include "report/report_runs.h"
#include "report/report_table.h"

namespace sinklab {

// Sink statistics over the rows the task has: no-op rows (bos, mass, bos_min) from runs whose task
// flags them, all rows (bos_all, mass_all) from runs whose task does not (text_lm); n = 0 where none.
struct HeadAggregate {
  BootstrapMeanCi bos;          // bos_mass_nontrigger_mean over seeds
  BootstrapMeanCi mass;         // mass_nontrigger_mean over seeds
  BootstrapMeanCi bos_all;      // bos_mass_mean over seeds
  BootstrapMeanCi mass_all;     // mass_mean over seeds
  BootstrapMeanCi sink_score;   // alpha_0 over seeds
  BootstrapMeanCi sink_excess;  // sink_excess over seeds (n = 0 for runs written before it)
  double bos_min = std::numeric_limits<double>::quiet_NaN();  // smallest bos_mass_nontrigger_min of any seed
  int sink_seeds = 0;    // seeds in which this head is a sink head
};

struct VariantSummary {
  std::string variant;
  std::string normalizer;
  // runs listed, runs that finished without diverging (all statistics are over these), runs that met
  // the stop rule, runs that diverged (shown as a count, left out of every statistic)
  int total = 0, ok = 0, reached = 0, diverged = 0;
  bool all_diverged() const { return ok == 0 && diverged > 0; }
  TaskMeasures measures;  // of its usable runs
  MeanCi steps, eval_mse, eval_max_abs_error, wall_seconds;
  ProportionCi sink_rate;  // sink heads / heads, pooled over those runs: a binomial interval, not a t one
  BootstrapMeanCi sink_excess;  // sink_excess_mean over those runs: the graded headline, sink_rate second
  // Token tasks (n = 0 otherwise): cross-entropy in nats and accuracy, over all scored positions and
  // over the active and no-op rows.
  MeanCi eval_loss, eval_active_loss, eval_no_op_loss;
  BootstrapMeanCi eval_accuracy, eval_active_accuracy, eval_no_op_accuracy;
  std::map<std::pair<int, int>, HeadAggregate> heads;  // (layer, head)
};

std::vector<VariantSummary> summarize_variants(const ReportRuns& runs);

// summary.csv: one row per run, status ok, diverged (what went non-finite in the error column) or failed
Table run_table(const ReportRuns& runs);
// One row per variant, one table per model shape (set of heads); eps/T/baseline notes under the last.
std::vector<Table> variant_tables(const ReportRuns& runs, const std::vector<VariantSummary>& variants);
Table head_table(const std::vector<VariantSummary>& variants);
Table failed_runs_table(const ReportRuns& runs);  // id, dir, reason; no rows when all are fine
// The compact terminal table: the task's loss, per-head BOS means on one line per variant ("/" between
// layers).
Table variant_text_table(const std::vector<VariantSummary>& variants);

// eps, T and the uniform-causal baseline actually found in the runs, for under every table.
std::vector<std::string> setting_notes(const ReportRuns& runs);
// The same without the note on confidence intervals, for tables that show none (the zoo table).
std::vector<std::string> sink_setting_notes(const ReportRuns& runs);

}  // namespace sinklab
