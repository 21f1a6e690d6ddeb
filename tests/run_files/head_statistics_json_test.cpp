// The per-head statistics of stats/head_statistics.h in run files: every entry under its name, NaN
// as null, and files from before a statistic existed.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "run_files/run_summary.h"
#include "stats/head_statistics.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

// Distinct values by position in the list; trigger_bos and entropy_mean null (their rows never occurred).
HeadSinkStats numbered_head() {
  HeadSinkStats s;
  s.layer = 1;
  s.head = 2;
  double v = 0.125;
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (stat.is_flag())
      s.*stat.flag = true;
    else
      s.*stat.number = v += 0.5;
  }
  s.trigger_bos = std::nan("");
  s.entropy_mean = std::nan("");
  return s;
}

void expect_same_or_both_null(const HeadSinkStats& a, const HeadSinkStats& b) {
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.head, b.head);
  for (const HeadStatistic& stat : kHeadStatistics) {
    if (stat.is_flag()) {
      EXPECT_EQ(a.*stat.flag, b.*stat.flag) << stat.name;
    } else if (std::isnan(a.*stat.number)) {
      EXPECT_TRUE(std::isnan(b.*stat.number)) << stat.name;
    } else {
      EXPECT_EQ(a.*stat.number, b.*stat.number) << stat.name;
    }
  }
}

TEST(HeadStatisticsJson, EveryStatisticUnderItsNameAndNullForNaN) {
  const HeadSinkStats s = numbered_head();
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(s).dump());
  EXPECT_EQ(j.size(), 2 + kHeadStatistics.size());
  for (const HeadStatistic& stat : kHeadStatistics) ASSERT_TRUE(j.contains(stat.name)) << stat.name;
  EXPECT_TRUE(j["trigger_bos"].is_null());
  EXPECT_TRUE(j["entropy_mean"].is_null());
  EXPECT_TRUE(j["sink_head"].is_boolean());
  EXPECT_EQ(j["bos_mass_nontrigger_mean"].get<double>(), 0.625);
  expect_same_or_both_null(s, j.get<HeadSinkStats>());
}

TEST(HeadStatisticsJson, MetricsLinesKeepNullStatistics) {
  const auto dir = sinklab::testing::fresh_test_dir();
  MetricsRecord r;
  r.step = 10;
  r.heads = {numbered_head()};
  {
    std::ofstream out(dir / "metrics.jsonl");
    write_metrics_line(out, r);
  }
  const std::vector<MetricsRecord> back = read_metrics(dir / "metrics.jsonl");
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].heads.size(), 1u);
  expect_same_or_both_null(r.heads[0], back[0].heads[0]);
}

TEST(HeadStatisticsJson, FilesFromBeforeTheAllRowStatisticsReadThemAsNull) {
  nlohmann::json j = numbered_head();
  for (const char* added : {"bos_mass_mean", "mass_mean", "entropy_mean"}) j.erase(added);
  const HeadSinkStats old = j.get<HeadSinkStats>();
  EXPECT_TRUE(std::isnan(old.bos_mass_mean));
  EXPECT_TRUE(std::isnan(old.mass_mean));
  EXPECT_TRUE(std::isnan(old.entropy_mean));
  EXPECT_EQ(old.bos_mass_nontrigger_mean, 0.625);
  // A statistic that every file has is still required.
  j.erase("sink_head");
  try {
    (void)j.get<HeadSinkStats>();
    FAIL() << "a head without sink_head was accepted";
  } catch (const JsonFieldError& e) {
    EXPECT_EQ(std::string(e.what()), "sink_head: missing field");
  }
}

}  // namespace
}  // namespace sinklab
