#pragma once
// The distribution of sink onset steps per variant (stats/sink_onset.h; summary.json's
// sink_onset_step_50 / _90 of every head): a strip plot, one dot per seed and head, and a table of how
// many (seed, head) pairs reached each onset and the median, smallest and largest step. A pair without
// an onset (the head never stayed above the threshold, or its run was written before onsets existed)
// is counted, not drawn. Runs of tasks without no-op rows (text_lm) have no onsets and are left out.
#include <filesystem>
#include <string>

#include "report/report_runs.h"
#include "report/report_table.h"

namespace sinklab {

// Writes figures/<name>.{dat,gp}; false (nothing written) when no usable run has an onset.
bool write_onset_figure(const std::filesystem::path& fig_dir, const std::string& name, const std::string& title,
                        const ReportRuns& runs);

// One row per variant with usable runs; no rows when none of them has heads.
Table onset_table(const ReportRuns& runs);

}  // namespace sinklab
