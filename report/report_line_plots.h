#pragma once
// The report's line and dot plots: loss vs step, BOS mass vs step (one line per layer/head), and BOS
// mass per variant with every seed shown. Axes say what is plotted in the words of the runs' tasks
// (report_runs.h: TaskMeasures): MSE or cross-entropy, no-op (non-trigger) rows or all rows. Each
// writes figures/<name>.dat and <name>.gp; gnuplot_runner renders them.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "report/report_summary_tables.h"
#include "run_files/run_summary.h"

namespace sinklab {

// What a training loss is: mean squared error (regression tasks) or next-token cross-entropy in nats.
enum class LossKind { mse, cross_entropy };
LossKind loss_kind_of(const TaskMeasures& m);  // cross_entropy for token tasks

// The rows a BOS-mass figure reads: the no-op rows (bos_mass_nontrigger_mean) of a task that has them,
// else all rows (bos_mass_mean). `name` is how the axis calls them (sink_rows_name).
struct BosRows {
  bool no_op = true;
  std::string name = "non-trigger rows";
  double HeadSinkStats::*statistic() const {
    return no_op ? &HeadSinkStats::bos_mass_nontrigger_mean : &HeadSinkStats::bos_mass_mean;
  }
};
BosRows bos_rows_of(const TaskMeasures& m);
// "BOS mass on no-op rows", or on both kinds of rows for a sweep that mixes tasks with and without them.
std::string bos_axis_label(const TaskMeasures& m);

struct LossSeries {
  std::string title;  // legend entry; empty = no legend entry (another seed of the same variant)
  int colour = 1;     // gnuplot line colour index, shared by one variant's seeds
  std::vector<MetricsRecord> metrics;
  int64_t diverged_step = -1;  // >= 0: the run went non-finite here; a dashed line and a label mark it,
                               // since the log scale leaves the non-finite values themselves out
};

// Training loss as lines, the evaluation's loss of the same kind (eval_mse, eval_loss; where logged) as
// points of the same colour. MSE on a log scale; cross-entropy on a linear one in nats, with bits
// (nats / ln 2) on the right axis. Values the scale cannot show (NaN, <= 0 on a log scale) are left
// out. Returns false when there is nothing to draw.
bool write_loss_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                       const std::vector<LossSeries>& series, bool show_eval, LossKind kind);

// The BOS mass on `rows` of every (layer, head) vs step, from one run's metrics; colour = head,
// dash pattern = layer, so 16 lines stay distinguishable.
bool write_bos_step_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                           const std::vector<MetricsRecord>& metrics, const BosRows& rows);

// One column per variant; within it one slot per (layer, head), left to right; a dot per seed
// and the mean with its 95% bootstrap interval (a bare mean when n = 1); each variant's BOS mass on its task's rows
// (no-op rows, else all rows).
bool write_bos_dot_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          const ReportRuns& runs, const std::vector<VariantSummary>& variants);

}  // namespace sinklab
