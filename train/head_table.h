#pragma once
// The per-head table printed at the end of `sinklab train`.
#include <string>

#include "runs/run_summary.h"

namespace sinklab {

std::string format_head_table(const RunSummary& summary);

}  // namespace sinklab
