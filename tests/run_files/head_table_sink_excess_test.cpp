// The head table of `sinklab train` and `inspect` leads with the graded sink excess over uniform; the
// eps rule's sink rate follows it.
#include <gtest/gtest.h>

#include <string>

#include "run_files/head_table.h"

namespace sinklab {
namespace {

RunSummary summary_at_the_eps_edge() {
  RunSummary s;
  s.name = "1x1_softmax";
  s.layers = s.heads_per_layer = 1;
  s.seq_len = 16;
  s.eval_trigger = 7;
  s.sink_eps = 0.3;
  s.uniform_baseline = 0.2113;
  HeadSinkStats h;
  h.sink_score = 0.3000;  // a sink by the eps rule, by a hair
  h.bos_mass_nontrigger_mean = 0.2533;
  h.sink_head = true;
  h.sink_excess = 0.0881;
  s.heads = {h};
  s.sink_rate = 1.0;
  s.sink_excess_mean = 0.0881;
  return s;
}

TEST(HeadTableSinkExcess, TheGradedExcessComesBeforeTheSinkRate) {
  const std::string table = format_head_table(summary_at_the_eps_edge());
  const size_t excess = table.find("sink excess over uniform 0.09");
  const size_t rate = table.find("sink rate 1.00");
  ASSERT_NE(excess, std::string::npos) << table;
  ASSERT_NE(rate, std::string::npos) << table;
  EXPECT_LT(excess, rate) << table;
}

TEST(HeadTableSinkExcess, AnOlderRunWithoutItPrintsTheSinkRateAlone) {
  RunSummary s = summary_at_the_eps_edge();
  s.sink_excess_mean.reset();
  const std::string table = format_head_table(s);
  EXPECT_EQ(table.find("sink excess"), std::string::npos) << table;
  EXPECT_NE(table.find("sink rate 1.00"), std::string::npos) << table;
}

}  // namespace
}  // namespace sinklab
