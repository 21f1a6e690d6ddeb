// summary.csv's run table: a token task's metrics, overall and per row role, in their own columns;
// a vector task and an undefined metric leave the cell empty (never "nan"); a number no run has gets no column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "report/report_summary_tables.h"

namespace sinklab {
namespace {

std::string cell(const Table& t, size_t row, const std::string& column) {
  const auto at = std::find(t.header.begin(), t.header.end(), column);
  EXPECT_NE(at, t.header.end()) << column;
  return at == t.header.end() ? "" : t.rows.at(row).at(static_cast<size_t>(at - t.header.begin()));
}

TEST(RunTable, TokenTaskMetricsPerRoleHaveColumns) {
  ReportRuns runs;
  RunSummary token;
  token.layers = token.heads_per_layer = 1;
  token.heads.resize(1);
  token.eval_loss = 0.5;
  token.eval_accuracy = 0.75;
  token.eval_active_loss = 0.25;
  token.eval_active_accuracy = 1.0;
  token.eval_no_op_loss = 1.5;
  token.eval_no_op_accuracy = std::nan("");
  RunSummary vectors = token;
  vectors.eval_loss = vectors.eval_accuracy = vectors.eval_active_loss = vectors.eval_active_accuracy =
      vectors.eval_no_op_loss = vectors.eval_no_op_accuracy = std::nullopt;
  for (const auto& [id, summary] : {std::pair{"t", token}, std::pair{"v", vectors}}) {
    ReportRun r;
    r.id = id;
    r.variant = id;
    r.summary = summary;
    runs.runs.push_back(r);
  }
  const Table t = run_table(runs);
  for (const auto& row : t.rows) ASSERT_EQ(row.size(), t.header.size());
  EXPECT_EQ(cell(t, 0, "eval_loss"), "0.5");
  EXPECT_EQ(cell(t, 0, "eval_accuracy"), "0.75");
  EXPECT_EQ(cell(t, 0, "eval_active_loss"), "0.25");
  EXPECT_EQ(cell(t, 0, "eval_active_accuracy"), "1");
  EXPECT_EQ(cell(t, 0, "eval_no_op_loss"), "1.5");
  // A number no run has (here eval_no_op_accuracy) has no column at all, not one of empty cells.
  EXPECT_EQ(std::find(t.header.begin(), t.header.end(), "eval_no_op_accuracy"), t.header.end());
  for (const char* column : {"eval_loss", "eval_active_loss", "eval_no_op_loss"}) EXPECT_EQ(cell(t, 1, column), "");
}

}  // namespace
}  // namespace sinklab
