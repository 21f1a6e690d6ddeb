// The zoo table's facts come from the one summary reader (run_files/run_summary.h): statistics an older
// file lacks are not recorded (NaN), nulls stay NaN, and a mistyped one fails the read, naming it.
#include "report/zoo_run_facts.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sinklab {
namespace {

constexpr const char* kZooKeys[] = {"content_mass_nontrigger_mean",
                                    "virtual_mass_nontrigger_mean",
                                    "effective_content_mass",
                                    "value_weighted_bos_share",
                                    "sink_score_abs",
                                    "gate_nontrigger_mean",
                                    "sink_onset_step_50",
                                    "sink_onset_step_90",
                                    "bos_mass_by_row"};

RunSummary one_head_summary() {
  RunSummary s;
  s.seed = 3;
  s.steps = 864;
  s.stop_reason = "max_abs_error";
  s.reached_stop_rule = true;
  s.eval_max_abs_error = 4e-3;
  s.layers = s.heads_per_layer = 1;
  s.seq_len = 4;
  s.eval_trigger = 2;
  s.heads.resize(1);
  s.heads[0].bos_mass_nontrigger_mean = 0.9998;
  s.heads[0].mass_nontrigger_mean = 1.0;
  s.heads[0].nonbos_mass_nontrigger_mean = 2e-4;
  s.heads[0].sink_score = 0.8;
  return s;
}

TEST(ZooRunFacts, AnOlderSummaryHasTheRunFactsAndNothingInventedForTheNewStatistics) {
  nlohmann::json older = one_head_summary();
  for (const char* key : kZooKeys) older["heads"][0].erase(key);  // as written before the zoo statistics
  const ZooRunFacts f = zoo_run_facts(older.get<RunSummary>());
  EXPECT_TRUE(f.stopped);
  EXPECT_EQ(f.steps, 864);
  EXPECT_TRUE(f.single_head());
  ASSERT_EQ(f.heads.size(), 1u);
  EXPECT_EQ(f.heads[0].bos_nontrigger, 0.9998);
  EXPECT_EQ(f.heads[0].content_nontrigger, 2e-4);  // nonbos_mass_nontrigger_mean is the same number
  for (double v : {f.heads[0].virtual_nontrigger, f.heads[0].effective_content, f.heads[0].value_weighted_bos,
                   f.heads[0].sink_score_abs, f.heads[0].gate_nontrigger, f.heads[0].onset_50, f.heads[0].onset_90})
    EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(f.heads[0].bos_by_row.empty());
}

TEST(ZooRunFacts, ReadsTheZooStatisticsByTheirJsonNamesWithNullsAsNotRecorded) {
  nlohmann::json j = one_head_summary();
  j["heads"][0].update({{"content_mass_nontrigger_mean", 3e-4}, {"virtual_mass_nontrigger_mean", nullptr},
                        {"effective_content_mass", 1e-4}, {"value_weighted_bos_share", 0.97},
                        {"sink_score_abs", 0.81}, {"gate_nontrigger_mean", 0.35}, {"sink_onset_step_50", 120},
                        {"sink_onset_step_90", nullptr}, {"bos_mass_by_row", {1.0, 0.99, nullptr, 0.98}}});
  const ZooHeadFacts h = zoo_run_facts(j.get<RunSummary>()).heads.at(0);
  EXPECT_EQ(h.content_nontrigger, 3e-4);
  EXPECT_TRUE(std::isnan(h.virtual_nontrigger));
  EXPECT_EQ(h.effective_content, 1e-4);
  EXPECT_EQ(h.value_weighted_bos, 0.97);
  EXPECT_EQ(h.sink_score_abs, 0.81);
  EXPECT_EQ(h.gate_nontrigger, 0.35);
  EXPECT_EQ(h.onset_50, 120);
  EXPECT_TRUE(std::isnan(h.onset_90));
  ASSERT_EQ(h.bos_by_row.size(), 4u);
  EXPECT_EQ(h.bos_by_row[1], 0.99);
  EXPECT_TRUE(std::isnan(h.bos_by_row[2]));
}

TEST(ZooRunFacts, AMistypedStatisticFailsTheOneReaderNamingIt) {
  nlohmann::json j = one_head_summary();
  j["heads"][0]["bos_mass_by_row"] = {1.0, "x", 1.0, 1.0};
  try {
    (void)j.get<RunSummary>();
    FAIL() << "a string inside bos_mass_by_row was accepted";
  } catch (const JsonFieldError& e) {
    EXPECT_EQ(std::string(e.what()), "heads[0].bos_mass_by_row[1]: expected a number, got string");
  }
  j["heads"][0]["bos_mass_by_row"] = 0.5;
  EXPECT_THROW((void)j.get<RunSummary>(), JsonFieldError);
  j["heads"][0]["bos_mass_by_row"] = {1.0, 1.0, 1.0, 1.0};
  j["heads"][0]["sink_score_abs"] = "high";
  EXPECT_THROW((void)j.get<RunSummary>(), JsonFieldError);
}

}  // namespace
}  // namespace sinklab
