// The per-head facts summary.json has besides the statistics: bos_mass_by_row and the sink onset
// steps. Written for the evaluation only (never per step in metrics.jsonl), read from files that have
// them, and absent from older files without an error.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "run_files/run_summary.h"
#include "stats/head_statistics.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;

constexpr int kT = 4;

HeadSinkStats head(int h) {
  HeadSinkStats s;
  s.head = h;
  s.bos_mass_nontrigger_mean = 0.75;
  s.content_mass_nontrigger_mean = 0.25;
  s.virtual_mass_nontrigger_mean = std::nan("");  // unnormalized rows
  s.value_weighted_bos_share = 0.5;
  s.bos_mass_by_row = {1.0, 0.875, std::nan(""), 0.0625};
  s.sink_onset_step_50 = 120 + h;
  s.sink_onset_step_90 = std::nullopt;  // never reached
  return s;
}

RunSummary summary() {
  RunSummary s;
  s.name = "zoo";
  s.stop_reason = "max_steps";
  s.normalizer = "softmax";
  s.layers = 1;
  s.heads_per_layer = 2;
  s.seq_len = kT;
  s.heads = {head(0), head(1)};
  return s;
}

TEST(HeadEvaluationFacts, SummaryRoundTripKeepsByRowMassAndOnsets) {
  const auto dir = fresh_test_dir();
  write_run_summary(dir / "summary.json", summary());
  const RunSummary r = read_run_summary(dir / "summary.json");
  ASSERT_EQ(r.heads.size(), 2u);
  const HeadSinkStats& h = r.heads[1];
  ASSERT_EQ(h.bos_mass_by_row.size(), static_cast<size_t>(kT));
  EXPECT_EQ(h.bos_mass_by_row[0], 1.0);
  EXPECT_EQ(h.bos_mass_by_row[1], 0.875);
  EXPECT_TRUE(std::isnan(h.bos_mass_by_row[2]));
  EXPECT_EQ(h.bos_mass_by_row[3], 0.0625);
  EXPECT_EQ(h.sink_onset_step_50, std::optional<int64_t>(121));
  EXPECT_FALSE(h.sink_onset_step_90.has_value());
  EXPECT_EQ(h.content_mass_nontrigger_mean, 0.25);
  EXPECT_EQ(h.value_weighted_bos_share, 0.5);
  EXPECT_TRUE(std::isnan(h.virtual_mass_nontrigger_mean));
}

TEST(HeadEvaluationFacts, JsonNamesAndNulls) {
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(summary()).dump());
  const nlohmann::json& h = j["heads"][0];
  ASSERT_TRUE(h["bos_mass_by_row"].is_array());
  EXPECT_EQ(h["bos_mass_by_row"].size(), static_cast<size_t>(kT));
  EXPECT_TRUE(h["bos_mass_by_row"][2].is_null());
  EXPECT_EQ(h["sink_onset_step_50"].get<int64_t>(), 120);
  ASSERT_TRUE(h.contains("sink_onset_step_90"));
  EXPECT_TRUE(h["sink_onset_step_90"].is_null());
  EXPECT_TRUE(h["virtual_mass_nontrigger_mean"].is_null());
  for (const char* name : {"content_mass_nontrigger_mean", "effective_content_mass", "virtual_mass_nontrigger_mean",
                           "value_weighted_bos_share", "value_weighted_bos_share_v", "value_weighted_zero_rows",
                           "sink_score_abs", "gate_nontrigger_mean", "gate_trigger_mean", "gate_mean"})
    EXPECT_TRUE(h.contains(name)) << name;
}

TEST(HeadEvaluationFacts, MetricsLinesCarryTheStatisticsOnly) {
  const auto dir = fresh_test_dir();
  MetricsRecord r;
  r.step = 10;
  r.heads = {head(0)};
  {
    std::ofstream out(dir / "metrics.jsonl");
    write_metrics_line(out, r);
  }
  std::ifstream in(dir / "metrics.jsonl");
  std::string line;
  std::getline(in, line);
  const nlohmann::json h = nlohmann::json::parse(line)["heads"][0];
  EXPECT_FALSE(h.contains("bos_mass_by_row"));
  EXPECT_FALSE(h.contains("sink_onset_step_50"));
  EXPECT_FALSE(h.contains("sink_onset_step_90"));
  EXPECT_EQ(h.size(), 2 + kHeadStatistics.size());
  const HeadSinkStats back = read_metrics(dir / "metrics.jsonl")[0].heads[0];
  EXPECT_TRUE(back.bos_mass_by_row.empty());
  EXPECT_FALSE(back.sink_onset_step_50.has_value());
  EXPECT_EQ(back.value_weighted_bos_share, 0.5);
}

TEST(HeadEvaluationFacts, FilesFromBeforeTheZooStatisticsStillRead) {
  nlohmann::json j = summary();
  for (nlohmann::json& h : j["heads"]) {
    for (const char* added : {"content_mass_nontrigger_mean", "effective_content_mass", "virtual_mass_nontrigger_mean",
                              "value_weighted_bos_share", "value_weighted_bos_share_v", "value_weighted_zero_rows",
                              "sink_score_abs", "gate_nontrigger_mean", "gate_trigger_mean", "gate_mean",
                              "bos_mass_by_row", "sink_onset_step_50", "sink_onset_step_90"})
      ASSERT_EQ(h.erase(added), 1u) << added;
  }
  const RunSummary old = j.get<RunSummary>();
  for (const HeadSinkStats& h : old.heads) {
    EXPECT_EQ(h.bos_mass_nontrigger_mean, 0.75);
    for (const double v : {h.content_mass_nontrigger_mean, h.effective_content_mass, h.virtual_mass_nontrigger_mean,
                           h.value_weighted_bos_share, h.value_weighted_bos_share_v, h.value_weighted_zero_rows,
                           h.sink_score_abs, h.gate_nontrigger_mean, h.gate_trigger_mean, h.gate_mean})
      EXPECT_TRUE(std::isnan(v)) << v;
    EXPECT_TRUE(h.bos_mass_by_row.empty());
    EXPECT_FALSE(h.sink_onset_step_50.has_value());
    EXPECT_FALSE(h.sink_onset_step_90.has_value());
  }
}

std::string error_of(const nlohmann::json& j) {
  try {
    j.get<RunSummary>();
  } catch (const JsonFieldError& e) {
    return e.what();
  }
  return "no error";
}

TEST(HeadEvaluationFacts, MalformedFactsAreNamed) {
  nlohmann::json j = summary();
  j["heads"][1]["bos_mass_by_row"].erase(0);
  EXPECT_EQ(error_of(j), "heads[1].bos_mass_by_row: has 3 entries, expected seq_len = 4");
  j = summary();
  j["heads"][0]["bos_mass_by_row"][1] = "high";
  EXPECT_EQ(error_of(j), "heads[0].bos_mass_by_row[1]: expected a number, got string");
  j = summary();
  j["heads"][0]["bos_mass_by_row"] = 0.5;
  EXPECT_EQ(error_of(j), "heads[0].bos_mass_by_row: expected an array, got number 0.5");
  j = summary();
  j["heads"][0]["sink_onset_step_50"] = 1.5;
  EXPECT_EQ(error_of(j), "heads[0].sink_onset_step_50: expected an integer, got number 1.5");
}

TEST(HeadEvaluationFacts, ReadingTheFirstLinesOfAMetricsLogIgnoresWhatFollows) {
  const auto dir = fresh_test_dir();
  MetricsRecord r;
  r.heads = {head(0)};
  {
    std::ofstream out(dir / "metrics.jsonl");
    for (int64_t step : {0, 5, 10}) {
      r.step = step;
      write_metrics_line(out, r);
    }
    out << "{\"step\": 15, \"lo";  // a line cut off by a kill
  }
  const auto kept = read_metrics(dir / "metrics.jsonl", 2);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].step, 5);
  EXPECT_EQ(read_metrics(dir / "metrics.jsonl", 0).size(), 0u);
  EXPECT_EQ(read_metrics(dir / "metrics.jsonl", 3).size(), 3u);
  EXPECT_THROW(read_metrics(dir / "metrics.jsonl"), RunFileError);     // the whole file has the cut line
  EXPECT_THROW(read_metrics(dir / "metrics.jsonl", 4), RunFileError);  // and so do its first four lines
  {
    std::ofstream out(dir / "short.jsonl");
    write_metrics_line(out, r);
  }
  try {
    read_metrics(dir / "short.jsonl", 2);
    FAIL() << "a log shorter than asked for was accepted";
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("short.jsonl: has only 1 of the 2 lines to read"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sinklab
