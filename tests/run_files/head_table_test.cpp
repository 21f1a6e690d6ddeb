#include "run_files/head_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

// A summary whose heads have the rows `has` says: every statistic over other rows is null, as the
// evaluation leaves it for a task without them.
RunSummary summary_with_rows(int eval_trigger, bool no_op_rows, bool active_rows, int heads = 2) {
  RunSummary s;
  s.name = "run";
  s.stop_reason = "max_steps";
  s.seq_len = 16;
  s.sink_eps = 0.3;
  s.eval_trigger = eval_trigger;
  s.heads.resize(static_cast<size_t>(heads));
  for (int i = 0; i < heads; ++i) {
    HeadSinkStats& h = s.heads[static_cast<size_t>(i)];
    h.head = i;
    for (const HeadStatistic& stat : kHeadStatistics) {
      if (stat.is_flag()) continue;
      const bool rows_exist = stat.rows == StatisticRows::no_op    ? no_op_rows
                              : stat.rows == StatisticRows::active ? active_rows
                                                                   : true;
      h.*stat.number = rows_exist ? 0.25 + 0.125 * i : std::nan("");
    }
  }
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The headings of the table's header line (cells are separated by at least two spaces).
std::vector<std::string> headings(const std::string& table) {
  const std::vector<std::string> lines = lines_of(table);
  const auto header =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("layer head", 0) == 0; });
  EXPECT_NE(header, lines.end()) << table;
  std::vector<std::string> out;
  if (header == lines.end()) return out;
  const std::string& text = *header;
  for (size_t at = std::string("layer head").size(); at < text.size();) {
    at = text.find_first_not_of(' ', at);
    if (at == std::string::npos) break;
    size_t end = text.find("  ", at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(HeadTable, WideShowsEveryDefinedStatisticAndADashForANullHead) {
  RunSummary s = summary_with_rows(7, true, true);
  s.heads[1].trigger_bos = std::nan("");  // head 1 has no value, head 0 has: the column stays
  s.heads[0].bos_mass_nontrigger_mean = 0.98765;
  s.heads[0].sink_head = true;
  s.heads[0].gate_nontrigger_mean = s.heads[1].gate_nontrigger_mean = std::nan("");  // no gate: no column
  const std::string table = format_head_table(s, HeadTableWidth::wide);
  const std::vector<std::string> shown = headings(table);
  size_t columns = 0;
  for (const HeadStatistic& stat : kHeadStatistics)
    if (stat.in_head_table() && stat.name != std::string("gate_nontrigger_mean")) {
      EXPECT_TRUE(has(shown, stat.column)) << stat.name << "\n" << table;
      ++columns;
    }
  EXPECT_EQ(shown.size(), columns) << "only statistics with a column, and none that every head leaves null:\n" << table;
  EXPECT_FALSE(has(shown, "gate@nt")) << table;
  const std::vector<std::string> lines = lines_of(table);
  const auto header =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("layer head", 0) == 0; });
  ASSERT_NE(header, lines.end());
  const std::string& row0 = *(header + 1);
  const std::string& row1 = *(header + 2);
  EXPECT_NE(row0.find("0.9877"), std::string::npos) << row0;
  EXPECT_NE(row0.find("yes"), std::string::npos) << row0;
  EXPECT_NE(row1.find(" - "), std::string::npos) << row1;
  EXPECT_EQ(header->size(), row0.size()) << "columns are aligned:\n" << table;
  EXPECT_GT(header->size(), kNarrowHeadTableWidth) << "every column of a trigger run does not fit 120 characters";
}

// Every line of the default table fits 120 characters (the first line names the run and may not);
// what is left out is named, and every heading shown is explained on a line of its own.
void expect_narrow_with_legend(const RunSummary& s) {
  const std::string table = format_head_table(s);
  const std::vector<std::string> lines = lines_of(table);
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_LE(lines[i].size(), kNarrowHeadTableWidth) << lines[i];
  for (const std::string& heading : headings(table)) {
    const bool explained = std::any_of(lines.begin(), lines.end(),
                                       [&](const std::string& l) { return l.rfind("  " + heading + "  ", 0) == 0; });
    EXPECT_TRUE(explained) << heading << " has no legend line:\n" << table;
  }
  const std::vector<std::string> wide = headings(format_head_table(s, HeadTableWidth::wide));
  for (const std::string& heading : wide) {
    if (!has(headings(table), heading)) {
      EXPECT_NE(table.find("--wide adds: "), std::string::npos) << heading << "\n" << table;
    }
  }
}

TEST(HeadTable, ATriggerRunFitsOneHundredTwentyColumnsAndNamesWhatWideAdds) {
  const RunSummary s = summary_with_rows(7, true, true);
  expect_narrow_with_legend(s);
  const std::vector<std::string> shown = headings(format_head_table(s));
  for (const char* heading : {"BOS@non-trig", "row mass", "trig BOS", "alpha_0", "sink"})
    EXPECT_TRUE(has(shown, heading)) << heading;
  EXPECT_FALSE(has(shown, "BOS@all")) << "statistics over all rows are for tasks without no-op rows";
  EXPECT_NE(format_head_table(s).find("--wide adds: "), std::string::npos);
  EXPECT_NE(format_head_table(s).find("eval trigger j = 7"), std::string::npos);
}

TEST(HeadTable, ALanguageModelRunShowsOnlyItsAllRowStatisticsWithoutTriggerWords) {
  RunSummary s = summary_with_rows(-1, false, false);  // text_lm: a sink key and nothing else flagged
  s.eval_loss = 1.5;
  s.eval_accuracy = 0.5;
  s.eval_active_loss = s.eval_active_accuracy = s.eval_no_op_loss = s.eval_no_op_accuracy = std::nan("");
  for (HeadSinkStats& h : s.heads) h.gate_mean = std::nan("");  // softmax: no gate
  expect_narrow_with_legend(s);
  const std::string table = format_head_table(s);
  const std::vector<std::string> shown = headings(table);
  EXPECT_EQ(shown, (std::vector<std::string>{"alpha_0", "sink", "BOS@all", "mass@all", "entropy@all", "excess"}))
      << table;
  EXPECT_EQ(table.find("trig"), std::string::npos) << table;
  EXPECT_EQ(table.find("rows: loss"), std::string::npos) << "no role it scores, no line of dashes:\n" << table;
  EXPECT_EQ(table.find("--wide"), std::string::npos) << "all of it fits:\n" << table;
  EXPECT_EQ(headings(format_head_table(s, HeadTableWidth::wide)), shown);
  s.heads[1].gate_mean = 0.5;  // gated attention: its gate over every row is shown too
  EXPECT_TRUE(has(headings(format_head_table(s)), "gate@all")) << format_head_table(s);
}

TEST(HeadTable, ACopyRunNamesItsRowsNoOpAndActive) {
  RunSummary s = summary_with_rows(-1, true, true);
  s.eval_loss = 0.5;
  s.eval_accuracy = 0.9;
  expect_narrow_with_legend(s);
  const std::string table = format_head_table(s, HeadTableWidth::wide);
  const std::vector<std::string> shown = headings(table);
  for (const char* heading : {"BOS@no-op", "active BOS", "active dev", "vBOS@no-op"})
    EXPECT_TRUE(has(shown, heading)) << heading << "\n" << table;
  EXPECT_EQ(table.find("trig"), std::string::npos) << table;
}

TEST(HeadTable, NarrowWithTheNoOpColumnsAndTheSinkScoreContext) {
  RunSummary s;
  s.name = "1x1_gated";
  s.seq_len = 16;
  s.sink_eps = 0.3;
  s.uniform_baseline = 0.2113;
  s.heads.resize(1);
  s.heads[0].virtual_mass_nontrigger_mean = 0.625;
  s.heads[0].value_weighted_bos_share = 0.375;
  s.heads[0].gate_nontrigger_mean = 0.125;
  s.heads[0].sink_score_abs = 0.4321;  // JSON only
  const std::string table = format_head_table(s);
  for (const char* column : {"virtual", "vBOS@nt", "gate@nt"})
    EXPECT_NE(table.find(column), std::string::npos) << column;
  for (const char* value : {"0.6250", "0.3750", "0.1250"}) EXPECT_NE(table.find(value), std::string::npos) << value;
  EXPECT_EQ(table.find("0.4321"), std::string::npos) << table;
  // alpha_0 never appears without eps, T and the uniform baseline.
  for (const char* context : {"T = 16", "eps = 0.30", "H_T/T = 0.2113"})
    EXPECT_NE(table.find(context), std::string::npos) << context << "\n" << table;
  size_t widest = 0;
  std::istringstream lines(table);
  std::string title;
  std::getline(lines, title);  // the title line may be long (names, paths)
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  EXPECT_LE(widest, kNarrowHeadTableWidth) << "the head table grew past a terminal:\n" << table;
}

TEST(HeadTable, TokenTasksShowTheirActiveAndNoOpRowMetricsAndBaselines) {
  RunSummary s;
  s.heads.resize(1);
  EXPECT_EQ(format_head_table(s).find("active rows"), std::string::npos) << "a vector task: no line";
  s.eval_loss = 0.5;
  s.eval_accuracy = 0.75;
  s.eval_active_loss = 0.0123;
  s.eval_active_accuracy = 0.9991;
  s.eval_no_op_loss = 1.6042;
  s.eval_no_op_accuracy = std::nan("");
  s.task_baselines = {{"markov_entropy", 1.5987}};
  const std::string table = format_head_table(s);
  EXPECT_NE(table.find("active rows: loss 0.0123 nats  accuracy 0.9991; no-op rows: loss 1.6042 nats  accuracy -; "
                       "markov_entropy 1.5987\n"),
            std::string::npos)
      << table;
}

TEST(HeadTable, OnsetsOnOneLineWhenTheRunHasThem) {
  RunSummary s;
  s.heads.resize(2);
  s.heads[1].head = 1;
  EXPECT_EQ(format_head_table(s).find("sink onset"), std::string::npos) << "no onsets (inspect, older files): no line";
  s.heads[0].sink_onset_step_50 = 40;
  s.heads[0].sink_onset_step_90 = 55;
  s.heads[1].sink_onset_step_50 = 300;
  const std::string table = format_head_table(s);
  EXPECT_NE(table.find(">= 0.5 / >= 0.9: L0H0 40/55 L0H1 300/-; - = not reached)"), std::string::npos) << table;
}

// A token task's evaluation loss is printed in nats and in bits per token (nats / ln 2).
TEST(HeadTable, TokenTaskLossInNatsAndBits) {
  RunSummary s;
  s.name = "text_lm";
  s.eval_loss = 1.3862943611198906;  // 2 ln 2: exactly 2 bits
  s.eval_accuracy = 0.5;
  s.heads.resize(1);
  const std::string title = format_head_table(s).substr(0, format_head_table(s).find('\n'));
  EXPECT_NE(title.find("eval loss 1.386e+00 nats (2.0000 bits)  accuracy 0.5000"), std::string::npos) << title;
}

}  // namespace
}  // namespace sinklab
