#include "run_files/head_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "stats/head_statistics.h"

namespace sinklab {
namespace {

TEST(HeadTable, OneColumnPerStatisticAndADashForNull) {
  RunSummary s;
  s.name = "1x1_softmax";
  s.stop_reason = "max_abs_error";
  s.heads.resize(1);
  s.heads[0].bos_mass_nontrigger_mean = 0.98765;
  s.heads[0].trigger_bos = std::nan("");  // no active rows
  s.heads[0].sink_head = true;
  const std::string table = format_head_table(s);
  std::istringstream lines(table);
  std::string title, header, row;
  std::getline(lines, title);
  std::getline(lines, header);
  std::getline(lines, row);
  size_t columns = 0;
  for (const HeadStatistic& stat : kHeadStatistics)
    if (stat.in_head_table()) {
      EXPECT_NE(header.find(stat.column), std::string::npos) << stat.name;
      ++columns;
    }
  // Cells are separated by at least two spaces; a header has at most single spaces ("BOS min").
  size_t cells = 1;  // "layer head"
  for (size_t i = 0; i + 2 < header.size(); ++i)
    if (header[i] == ' ' && header[i + 1] == ' ' && header[i + 2] != ' ') ++cells;
  EXPECT_EQ(cells, 1 + columns) << "only statistics with a column are in the table:\n" << header;
  EXPECT_EQ(header.find("layer head"), 0u);
  EXPECT_NE(row.find("0.9877"), std::string::npos) << row;
  EXPECT_NE(row.find(" - "), std::string::npos) << row;
  EXPECT_NE(row.find("yes"), std::string::npos) << row;
  EXPECT_EQ(header.size(), row.size()) << "columns are aligned:\n" << table;
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
  for (const char* column : {"virtual", "vBOS@nt", "gate@nt"}) EXPECT_NE(table.find(column), std::string::npos) << column;
  for (const char* value : {"0.6250", "0.3750", "0.1250"}) EXPECT_NE(table.find(value), std::string::npos) << value;
  EXPECT_EQ(table.find("0.4321"), std::string::npos) << table;
  // alpha_0 never appears without eps, T and the uniform baseline.
  for (const char* context : {"T = 16", "eps = 0.30", "H_T/T = 0.2113"})
    EXPECT_NE(table.find(context), std::string::npos) << context << "\n" << table;
  size_t widest = 0;
  std::istringstream lines(table);
  std::string title;
  std::getline(lines, title);  // the title line may be long (names, paths)
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("(", 0) != 0) widest = std::max(widest, line.size());
  EXPECT_LE(widest, 170u) << "the head table grew past a wide terminal:\n" << table;
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
