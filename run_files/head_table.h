#pragma once
// The per-head table printed at the end of `sinklab train` (and by `sinklab inspect --eval`): one
// column per statistic of stats/head_statistics.h that has one, eps, T and the uniform baseline
// under it, and the sink onset steps when the run has them.
#include <string>

#include "run_files/run_summary.h"

namespace sinklab {

std::string format_head_table(const RunSummary& summary);

}  // namespace sinklab
