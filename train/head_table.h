#pragma once
// The per-head table printed at the end of `sinklab train`: one column per statistic of
// stats/head_statistics.h.
#include <string>

#include "run_files/run_summary.h"

namespace sinklab {

std::string format_head_table(const RunSummary& summary);

}  // namespace sinklab
