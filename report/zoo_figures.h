#pragma once
// The zoo comparison's figures (docs/compare.md): every variant's evaluation attention side by side,
// one panel per variant (per head of it on multi-head models, a variant's heads in a row), and BOS mass
// on no-op rows vs training step, one line per variant. Both use one run per variant: seed 0 when it
// finished without diverging, else the first such seed. Each writes figures/<name>.dat and <name>.gp.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "report/gnuplot_script.h"
#include "report/report_runs.h"
#include "report/zoo_table.h"

namespace sinklab {

// The run a figure shows for `variant`: seed 0 if usable, else its first usable run; null when none.
// With `with_maps`, only runs that saved mean attention maps count.
const ReportRun* zoo_representative_run(const ReportRuns& runs, const std::string& variant, bool with_maps);

// One heatmap figure per model shape (layers x heads x T) among the variants: zoo_attention, or
// zoo_attention_<shape> when the sweep mixes shapes. Returns the figures written.
std::vector<Figure> write_zoo_heatmap_figures(const std::filesystem::path& fig_dir, const ReportRuns& runs,
                                              const std::vector<ZooVariant>& variants, std::ostream& log);

// zoo_bos_vs_step: per variant the mean over heads of bos_mass_nontrigger_mean at every logged step;
// colour per variant, dash pattern per sink class. False when no variant has metrics.
bool write_zoo_bos_step_figure(const std::filesystem::path& fig_dir, const std::string& name, const ReportRuns& runs,
                               const std::vector<ZooVariant>& variants, std::ostream& log);

}  // namespace sinklab
