#pragma once
// The report's line and dot plots: loss vs step (log y), BOS mass on non-trigger rows vs step
// (one line per layer/head), and BOS mass per variant with every seed shown. Each writes
// figures/<name>.dat and <name>.gp; gnuplot_runner renders them.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "report/report_summary_tables.h"
#include "run_files/run_summary.h"

namespace sinklab {

struct LossSeries {
  std::string title;  // legend entry; empty = no legend entry (another seed of the same variant)
  int colour = 1;     // gnuplot line colour index, shared by one variant's seeds
  std::vector<MetricsRecord> metrics;
  int64_t diverged_step = -1;  // >= 0: the run went non-finite here; a dashed line and a label mark it,
                               // since the log scale leaves the non-finite values themselves out
};

// Training loss as lines, evaluation MSE (where logged) as points of the same colour. Values that
// a log scale cannot show (<= 0, NaN) are left out. Returns false when there is nothing to draw.
bool write_loss_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                       const std::vector<LossSeries>& series, bool show_eval);

// bos_mass_nontrigger_mean of every (layer, head) vs step, from one run's metrics; colour = head,
// dash pattern = layer, so 16 lines stay distinguishable.
bool write_bos_step_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                           const std::vector<MetricsRecord>& metrics);

// One column per variant; within it one slot per (layer, head), left to right; a dot per seed
// and the mean with its 95% CI (a bare mean when n = 1).
bool write_bos_dot_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                          const ReportRuns& runs, const std::vector<VariantSummary>& variants);

}  // namespace sinklab
