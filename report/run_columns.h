#pragma once
// The columns of the report's run table (summary.csv), each a name and how a run fills its cell.
// The number columns come from the lists of stats/run_numbers.h and stats/head_statistics.h (the
// entries marked in_run_table), so a number marked there appears here with no other edit, and a row
// is always as long as the header.
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/report_runs.h"

namespace sinklab {

struct Column {
  std::string name;
  // The cell of one run: the shortest exact decimal of a number, "" when the run has none (failed,
  // diverged, unset or undefined: never "nan").
  std::function<std::string(const ReportRun&)> value;
  // A number of stats/run_numbers.h or stats/head_statistics.h: the table leaves it out when no run
  // has it (a number the runs' tasks do not define, e.g. eval_mse of token tasks).
  bool number = false;
};

// id, variant, seed, status, steps, stop_reason; the run numbers; per (layer, head) in `heads` the head
// statistics; error (what went non-finite, or why the run failed).
std::vector<Column> run_table_columns(const std::set<std::pair<int, int>>& heads);

// The shortest text that reads back to the same double; "" for NaN.
std::string exact_number(double v);

}  // namespace sinklab
