// summary.json carries the graded sink measure: sink_excess per head and sink_excess_mean per run,
// written and read back; a file written before them still loads, with them unknown (null / unset).
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "run_files/run_summary.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

RunSummary summary_with_excess() {
  RunSummary s;
  s.name = "1x1_softmax";
  s.normalizer = "softmax";
  s.layers = s.heads_per_layer = 1;
  s.seq_len = 16;
  s.eval_trigger = 7;
  s.sink_eps = 0.3;
  s.uniform_baseline = 0.2113;
  s.git_revision = "test";
  HeadSinkStats h;
  h.sink_score = 0.30;
  h.sink_excess = 0.0882;
  s.heads = {h};
  s.sink_excess_mean = 0.0882;
  return s;
}

TEST(RunSummarySinkExcess, IsWrittenAndReadBack) {
  const auto dir = sinklab::testing::fresh_test_dir();
  write_run_summary(dir / "summary.json", summary_with_excess());
  const nlohmann::json j = nlohmann::json::parse(sinklab::testing::read_text(dir / "summary.json"));
  EXPECT_EQ(j["sink_excess_mean"].get<double>(), 0.0882);
  EXPECT_EQ(j["heads"][0]["sink_excess"].get<double>(), 0.0882);
  const RunSummary r = read_run_summary(dir / "summary.json");
  ASSERT_TRUE(r.sink_excess_mean.has_value());
  EXPECT_EQ(*r.sink_excess_mean, 0.0882);
  EXPECT_EQ(r.heads.at(0).sink_excess, 0.0882);
}

TEST(RunSummarySinkExcess, AnOlderFileWithoutItStillLoads) {
  const auto dir = sinklab::testing::fresh_test_dir();
  nlohmann::json j = summary_with_excess();
  j.erase("sink_excess_mean");
  j["heads"][0].erase("sink_excess");
  sinklab::testing::write_text(dir / "summary.json", j.dump());
  const RunSummary r = read_run_summary(dir / "summary.json");
  EXPECT_FALSE(r.sink_excess_mean.has_value());
  EXPECT_TRUE(std::isnan(r.heads.at(0).sink_excess));
  EXPECT_EQ(r.heads.at(0).sink_score, 0.30);
}

}  // namespace
}  // namespace sinklab
