// The "extreme_tokens" object of summary.json and metrics.jsonl (run_files/extreme_tokens_json.h):
// written and read back equal, and each damaged field one message naming it.
#include "run_files/extreme_tokens_json.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run_files/json_fields.h"
#include "run_files/run_summary.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

ExtremeTokenStats two_heads() {
  ExtremeTokenStats s;
  s.seq_len = 64;
  s.windows = 100;
  s.eps = 0.3;
  s.uniform_baseline = 0.0741;
  s.sink_rate = {0.5, 0.0, 0.0, 0.0};
  for (int h = 0; h < 2; ++h) {
    HeadExtremes e;
    e.layer = 0;
    e.head = h;
    e.alpha = {0.1 + h, 0.05, 0.04, 0.03};
    e.value_drain = 0.2;
    e.key_norm_ratio = 0.8;
    e.key_cos_first = 0.4;
    e.key_cos_others = 0.01;
    s.heads.push_back(e);
  }
  LayerExtremes l;
  l.layer = 0;
  l.median_abs = 0.5;
  l.max_abs = 40;
  l.massive_ratio = 80;
  l.max_position = 0;
  l.max_channel = 7;
  l.top = {{0, 7, 38.0, 76.0}, {0, 3, 10.0, 20.0}};
  l.residual_peak = 9.5;
  s.layers.push_back(l);
  return s;
}

TEST(ExtremeTokensJson, RoundTripsEveryField) {
  ExtremeTokenReport r{two_heads(), two_heads(), std::nullopt};
  r.gu_bos->sink_rate_slot = 0.25;
  r.gu_bos->heads[1].alpha_slot = 0.6;
  const ExtremeTokenReport back = parse_extreme_tokens(nlohmann::json::parse(extreme_tokens_json(r).dump()), "x");
  EXPECT_EQ(back.eval.heads[1].alpha[0], 1.1);
  EXPECT_TRUE(std::isnan(back.eval.heads[1].alpha_slot));
  EXPECT_TRUE(std::isnan(back.eval.sink_rate_slot));
  ASSERT_TRUE(back.gu_bos.has_value());
  EXPECT_FALSE(back.gu_no_bos.has_value());
  EXPECT_EQ(back.gu_bos->heads[1].alpha_slot, 0.6);
  EXPECT_EQ(back.gu_bos->sink_rate_slot, 0.25);
  EXPECT_EQ(back.eval.layers[0].top[1].channel, 3);
  EXPECT_EQ(back.eval.layers[0].massive_ratio, 80);
  EXPECT_EQ(back.eval.layers[0].residual_peak, 9.5);
  EXPECT_EQ(back.eval.windows, 100);
  EXPECT_EQ(extreme_tokens_json(back), extreme_tokens_json(r));
}

TEST(ExtremeTokensJson, EachDamagedFieldIsOneMessageNamingIt) {
  const nlohmann::json good = extreme_tokens_json({two_heads(), std::nullopt, std::nullopt});
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> damage = {
      {[](nlohmann::json& j) { j.erase("eval"); }, "eval"},
      {[](nlohmann::json& j) { j["eval"]["seq_len"] = 0; }, "eval.seq_len"},
      {[](nlohmann::json& j) { j["eval"]["windows"] = "many"; }, "eval.windows"},
      {[](nlohmann::json& j) { j["eval"]["sink_rate"] = {0.1}; }, "eval.sink_rate"},
      {[](nlohmann::json& j) { j["eval"]["sink_rate"][2] = 1.5; }, "eval.sink_rate[2]"},
      {[](nlohmann::json& j) { j["eval"]["heads"] = nlohmann::json::array(); }, "eval.heads"},
      {[](nlohmann::json& j) {
         j["eval"]["heads"][1]["alpha"] = {1, 2};
       },
       "eval.heads[1].alpha"},
      {[](nlohmann::json& j) { j["eval"]["heads"][1]["alpha"][3] = "x"; }, "eval.heads[1].alpha[3]"},
      {[](nlohmann::json& j) { j["eval"]["heads"][0]["layer"] = -1; }, "eval.heads[0].layer"},
      {[](nlohmann::json& j) { j["eval"]["heads"][0].erase("value_drain"); }, "eval.heads[0].value_drain"},
      {[](nlohmann::json& j) { j["eval"]["layers"][0]["max_channel"] = 1.5; }, "eval.layers[0].max_channel"},
      {[](nlohmann::json& j) {
         j["eval"]["layers"][0]["top"].push_back(j["eval"]["layers"][0]["top"][0]);
         j["eval"]["layers"][0]["top"].push_back(j["eval"]["layers"][0]["top"][0]);
       },
       "eval.layers[0].top"},
      {[](nlohmann::json& j) { j["eval"]["layers"][0]["top"][0]["ratio"] = nlohmann::json::object(); },
       "eval.layers[0].top[0].ratio"},
      {[](nlohmann::json& j) { j["gu_bos"] = 3; }, "gu_bos"},
  };
  for (const auto& [mutate, field] : damage) {
    nlohmann::json j = good;
    mutate(j);
    try {
      parse_extreme_tokens(j, "");
      ADD_FAILURE() << field << ": accepted";
    } catch (const JsonFieldError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << field << ": " << e.what();
    }
  }
}

TEST(ExtremeTokensJson, ASummaryWhoseStatisticsAreNotItsHeadsIsRefused) {
  const auto dir = testing::fresh_test_dir();
  RunSummary s;
  s.name = "x";
  s.stop_reason = "max_steps";
  s.layers = 1;
  s.heads_per_layer = 2;
  s.seq_len = 64;
  for (int h = 0; h < 2; ++h) {
    HeadSinkStats head;
    head.head = h;
    s.heads.push_back(head);
  }
  s.extreme_tokens = ExtremeTokenReport{two_heads(), std::nullopt, std::nullopt};
  write_run_summary(dir / "summary.json", s);
  EXPECT_EQ(read_run_summary(dir / "summary.json").extreme_tokens->eval.heads.size(), 2u);
  s.heads_per_layer = 1;
  s.heads.pop_back();
  write_run_summary(dir / "summary.json", s);
  try {
    read_run_summary(dir / "summary.json");
    FAIL() << "2 extreme-token heads accepted for 1 x 1";
  } catch (const RunFileError& e) {
    EXPECT_NE(std::string(e.what()).find("extreme_tokens.eval.heads"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab
