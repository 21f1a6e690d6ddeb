#include "train/head_table.h"

#include <gtest/gtest.h>

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
  for (const HeadStatistic& stat : kHeadStatistics) EXPECT_NE(header.find(stat.column), std::string::npos) << stat.name;
  EXPECT_EQ(header.find("layer head"), 0u);
  EXPECT_NE(row.find("0.9877"), std::string::npos) << row;
  EXPECT_NE(row.find(" - "), std::string::npos) << row;
  EXPECT_NE(row.find("yes"), std::string::npos) << row;
  EXPECT_EQ(header.size(), row.size()) << "columns are aligned:\n" << table;
}

}  // namespace
}  // namespace sinklab
