#pragma once
// The per-head table printed at the end of `sinklab train` (and by `sinklab inspect --eval`): one
// column per statistic of stats/head_statistics.h that has one and that the run defines (a column
// whose every head is null, e.g. no-op-row statistics of a task without no-op rows, is left out),
// one legend line per shown heading under it, eps, T and the uniform baseline, and the sink onset
// steps when the run has them. Statistics are named by the rows the run's task has: trigger wording
// ("non-trig", "trig") only for a task with a fixed trigger row, "no-op" and "active" otherwise.
#include <cstddef>
#include <string>

#include "run_files/run_summary.h"

namespace sinklab {

// How wide the table may be: `narrow` leaves columns out until every line fits kNarrowHeadTableWidth
// (statistics over all rows when the task has no-op rows, a non-sink mass beside its sink and row
// mass, a minimum beside its mean, then from the right) and says which; `wide` shows every defined
// column.
enum class HeadTableWidth { narrow, wide };
inline constexpr std::size_t kNarrowHeadTableWidth = 120;

std::string format_head_table(const RunSummary& summary, HeadTableWidth width = HeadTableWidth::narrow);

}  // namespace sinklab
