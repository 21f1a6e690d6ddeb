// `sinklab eval --massive set_zero|set_mean` and the extreme-token statistics of `sinklab eval` and
// `sinklab train` on the CI-sized language model (configs/normlimits/ci_tiny.yaml): the JSON's keys, a
// plan at the largest activation by default, the intervention's values, the flags' errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/ci_tiny_run.h"
#include "tests/apps/json_file.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

using testing::read_json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using MassiveEvalCommand = testing::CiTinyRun;

TEST_F(MassiveEvalCommand, TrainPrintsTheExtremeTokenTables) {
  EXPECT_TRUE(contains(trained_->output, "Gu's protocol, no BOS (T 64, 100 windows): Sink_1")) << trained_->output;
  EXPECT_TRUE(contains(trained_->output, "massive")) << trained_->output;
}

TEST_F(MassiveEvalCommand, SetZeroAtTheLargestActivationByDefault) {
  const testing::CliResult r = testing::run_sinklab("eval " + run_->string() + " --massive set_zero");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(*run_ / "eval" / "none_massive_set_zero.json");
  const nlohmann::json& base_layers = e["unablated"]["extreme_tokens"]["eval"]["layers"];
  // The default layer has the largest massive ratio of the unchanged model; the position is its largest |h|.
  int layer = 0;
  for (size_t l = 0; l < base_layers.size(); ++l)
    if (base_layers[l]["massive_ratio"].get<double>() > base_layers[layer]["massive_ratio"].get<double>())
      layer = static_cast<int>(l);
  EXPECT_EQ(e["massive"]["layer"], layer);
  EXPECT_EQ(e["massive"]["position"], base_layers[layer]["max_position"]);
  ASSERT_EQ(e["massive"]["channels"].size(), 3u);
  for (const auto& v : e["massive"]["values"]) EXPECT_EQ(v.get<double>(), 0.0);
  // The channel of the largest mean |h| at that position is the first one, and it is the top activation
  // the table reports when that top activation sits at the chosen position.
  const nlohmann::json& top = base_layers[layer]["top"][0];
  if (top["position"] == e["massive"]["position"]) {
    EXPECT_EQ(e["massive"]["channels"][0], top["channel"]);
  }
  // The loss changed by what the two evaluations say, and per head deltas are there.
  EXPECT_DOUBLE_EQ(e["deltas"]["eval_loss"].get<double>(),
                   e["eval_loss"].get<double>() - e["unablated"]["eval_loss"].get<double>());
  EXPECT_NE(e["deltas"]["eval_loss"].get<double>(), 0.0);
  EXPECT_EQ(e["deltas"]["heads"].size(), 4u);
  EXPECT_EQ(e["deltas"]["heads"][0]["alpha"].size(), 4u);
  EXPECT_TRUE(e["extreme_tokens"].contains("gu_no_bos"));
}

TEST_F(MassiveEvalCommand, SetMeanUsesEachChannelsMean) {
  const testing::CliResult r = testing::run_sinklab(
      "eval " + run_->string() + " --massive set_mean --massive-layer 0 --massive-position 0 --massive-top-k 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json e = read_json(*run_ / "eval" / "none_massive_set_mean.json");
  EXPECT_EQ(e["massive"]["layer"], 0);
  EXPECT_EQ(e["massive"]["position"], 0);
  ASSERT_EQ(e["massive"]["values"].size(), 2u);
  // Position 0 is BOS in every evaluation window: its residual stream is the same in all of them, so each
  // channel's mean is that value and |mean| = mean |h|; setting it changes nothing (bit for bit).
  for (size_t k = 0; k < 2; ++k)
    EXPECT_NEAR(std::fabs(e["massive"]["values"][k].get<double>()), e["massive"]["mean_abs"][k].get<double>(), 1e-5);
  EXPECT_NEAR(e["deltas"]["eval_loss"].get<double>(), 0.0, 1e-6);
}

TEST_F(MassiveEvalCommand, BadFlagsAreOneMessage) {
  for (const auto& [flags, message] :
       {std::pair{"--massive set_one", "--massive: expected set_zero or set_mean"},
        std::pair{"--massive-layer 0", "need --massive"},
        std::pair{"--massive set_zero --massive-layer 9", "--massive-layer"},
        std::pair{"--massive set_zero --massive-position 64", "--massive-position"},
        std::pair{"--massive set_mean --massive-top-k 0", "--massive-top-k"}}) {
    const testing::CliResult r =
        testing::run_sinklab("eval " + run_->string() + " " + flags + " --out /tmp/unused.json");
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_TRUE(contains(r.output, message)) << flags << ": " << r.output;
  }
}

}  // namespace
}  // namespace sinklab
