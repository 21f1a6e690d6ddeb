// A model whose weights are NaN: its extreme-token numbers are null in summary.json, as its head
// statistics are, never alpha 0 or max |h| -1 (models/extreme_token_evaluation.h, stats/extreme_tokens.h).
#include "models/extreme_token_evaluation.h"

#include <algorithm>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config_loading/config_loader.h"
#include "models/model_loader.h"
#include "run_files/run_summary.h"
#include "train/evaluation_pipeline.h"

namespace sinklab {
namespace {

TEST(ExtremeTokenEvaluation, NaNWeightsGiveNullNumbersAsTheHeadStatisticsDo) {
  const RunConfig config = parse_run_config(
      "model: {layers: 2, heads: 2, residual: true, attention: {normalizer: softmax}}\n"
      "train: {batch_size: 16, max_steps: 1}\ntask: {eval_samples: 16}\nanalysis: {eval_attention_samples: 8}\n",
      "nan_weights.yaml", {}, registered_vocabulary());
  const std::unique_ptr<Model> model = build_model(config);
  const std::span<float> weights = model->parameters().values();
  std::fill(weights.begin(), weights.end(), std::numeric_limits<float>::quiet_NaN());
  const EvaluationPipeline pipeline(config);
  Graph g;
  RunSummary summary = pipeline.run_summary();
  pipeline.record_final_evaluation(summary, pipeline.evaluate(g, *model), g, *model);
  const nlohmann::json j = nlohmann::json::parse(nlohmann::json(summary).dump());  // as summary.json reads

  ASSERT_EQ(j["heads"].size(), 4u);
  for (const nlohmann::json& head : j["heads"]) EXPECT_TRUE(head["sink_score"].is_null()) << head.dump();
  const nlohmann::json& eval = j["extreme_tokens"]["eval"];
  ASSERT_EQ(eval["heads"].size(), 4u);
  for (const nlohmann::json& head : eval["heads"]) {
    for (const nlohmann::json& alpha : head["alpha"]) EXPECT_TRUE(alpha.is_null()) << head.dump();
    for (const char* key : {"value_drain", "key_norm_ratio", "key_cos_first", "key_cos_others"})
      EXPECT_TRUE(head[key].is_null()) << key << " in " << head.dump();
  }
  for (const nlohmann::json& rate : eval["sink_rate"]) EXPECT_TRUE(rate.is_null()) << eval["sink_rate"].dump();
  ASSERT_EQ(eval["layers"].size(), 2u);
  for (const nlohmann::json& layer : eval["layers"])
    for (const char* key : {"median_abs", "max_abs", "massive_ratio", "residual_peak"})
      EXPECT_TRUE(layer[key].is_null()) << key << " in " << layer.dump();
}

// The evaluation inputs the statistics read: the first min(analysis.extreme_token_samples (default 64),
// analysis.eval_attention_samples) of the evaluation set.
TEST(ExtremeTokenEvaluation, ReadsAtMostExtremeTokenSamplesInputs) {
  const auto windows = [](const std::string& analysis) {
    const RunConfig config = parse_run_config(
        "model: {layers: 1, heads: 2, residual: true}\ntrain: {batch_size: 16, max_steps: 1}\n"
        "task: {eval_samples: 128}\nanalysis: {" + analysis + "}\n",
        "samples.yaml", {}, registered_vocabulary());
    const std::unique_ptr<Model> model = build_model(config);
    const EvaluationPipeline pipeline(config);
    Graph g;
    return pipeline.extreme_tokens(g, *model).eval.windows;
  };
  EXPECT_EQ(windows("eval_attention_samples: 100"), 64);  // the default cap
  EXPECT_EQ(windows("eval_attention_samples: 32"), 32);   // fewer attention inputs: all of them
  EXPECT_EQ(windows("eval_attention_samples: 100, extreme_token_samples: 5"), 5);
  EXPECT_EQ(windows("eval_attention_samples: 100, extreme_token_samples: 100"), 100);
}

}  // namespace
}  // namespace sinklab
