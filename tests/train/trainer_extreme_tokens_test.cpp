// Extreme-token statistics in training (models/extreme_token_evaluation.h): on evaluation steps only,
// in metrics.jsonl and summary.json, Gu's protocol for text_lm runs, and never a change to the weights.
#include <filesystem>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "config_loading/config_loader.h"
#include "models/extreme_token_evaluation.h"
#include "run_files/run_summary.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig trigger_config(int eval_every) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return parse_run_config(
      "model: {layers: 2, heads: 2, residual: true, attention: {normalizer: softmax}}\n"
      "optimizer: {lr: 3.0e-3}\ntrain: {batch_size: 16, max_steps: 12, log_every: 2, eval_every: " +
          std::to_string(eval_every) + "}\ntask: {eval_samples: 32}\nanalysis: {eval_attention_samples: 16}\n",
      "test.yaml", {}, vocab);
}

RunConfig text_config() {
  const fs::path source(SINKLAB_SOURCE_DIR);
  return load_run_config(source / "configs/normlimits/ci_tiny.yaml",
                         {"task.corpus=" + (source / "tests/fixtures/corpus/kjv_excerpt.txt").string(),
                          "train.max_steps=12", "optimizer.warmup_steps=2", "train.eval_every=6", "train.log_every=3"},
                         registered_vocabulary());
}

fs::path temp_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("sinklab_extreme_tokens_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(TrainerExtremeTokens, OnlyEvaluationLinesAndTheSummaryCarryThem) {
  const fs::path dir = temp_dir("lines");
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  Trainer t(trigger_config(4));
  const RunSummary s = t.run(o);
  int evaluated = 0;
  for (const MetricsRecord& r : read_metrics(dir / "metrics.jsonl")) {
    const bool evaluates = r.eval_mse.has_value();
    EXPECT_EQ(r.extreme_tokens.has_value(), evaluates) << "step " << r.step;
    if (!r.extreme_tokens) continue;
    ++evaluated;
    EXPECT_EQ(r.extreme_tokens->eval.windows, 16);  // analysis.eval_attention_samples
    EXPECT_EQ(r.extreme_tokens->eval.heads.size(), 4u);
    EXPECT_EQ(r.extreme_tokens->eval.layers.size(), 2u);
    EXPECT_FALSE(r.extreme_tokens->gu_bos.has_value());  // not a text_lm run
  }
  EXPECT_GE(evaluated, 3);
  ASSERT_TRUE(s.extreme_tokens.has_value());
  const RunSummary read = read_run_summary(dir / "summary.json");
  ASSERT_TRUE(read.extreme_tokens.has_value());
  EXPECT_EQ(read.extreme_tokens->eval.heads[3].alpha[0], s.extreme_tokens->eval.heads[3].alpha[0]);
  fs::remove_all(dir);
}

TEST(TrainerExtremeTokens, HowOftenARunEvaluatesNeverChangesItsWeights) {
  TrainOptions o;
  o.quiet = true;
  Trainer often(trigger_config(1)), never(trigger_config(1000));
  often.run(o);
  never.run(o);
  const auto a = often.parameters().values(), b = never.parameters().values();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
}

TEST(TrainerExtremeTokens, TextRunsMeasureGusProtocolWithAndWithoutBos) {
  const fs::path dir = temp_dir("text");
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  Trainer t(text_config());
  const RunSummary s = t.run(o);
  ASSERT_TRUE(s.extreme_tokens && s.extreme_tokens->gu_bos && s.extreme_tokens->gu_no_bos);
  for (const ExtremeTokenStats* g : {&*s.extreme_tokens->gu_bos, &*s.extreme_tokens->gu_no_bos}) {
    EXPECT_EQ(g->windows, 100);  // analysis.gu_windows' default
    EXPECT_EQ(g->seq_len, kGuSeqLen);
    EXPECT_NEAR(g->uniform_baseline, 0.0741, 5e-5);  // H_64 / 64 = 0.07405
  }
  // The windows differ only by the leading BOS: the statistics of position 0 differ.
  EXPECT_NE(s.extreme_tokens->gu_bos->heads[0].alpha[0], s.extreme_tokens->gu_no_bos->heads[0].alpha[0]);
  fs::remove_all(dir);
}

// analysis.gu_windows sets the protocol's window count (its cost); 0 measures no Gu statistics at all,
// and the summary then has no gu_sink_rate (it did not compute one).
TEST(TrainerExtremeTokens, GuWindowsSetsTheProtocolsWindowsAndZeroMeasuresNone) {
  for (const int windows : {7, 0}) {
    RunConfig config = text_config();
    config.analysis.gu_windows = windows;
    TrainOptions o;
    o.quiet = true;
    Trainer t(config);
    const RunSummary s = t.run(o);
    ASSERT_TRUE(s.extreme_tokens.has_value());
    if (windows == 0) {
      EXPECT_FALSE(s.extreme_tokens->gu_bos || s.extreme_tokens->gu_no_bos || s.gu_sink_rate || s.gu_sink_rate_bos);
      continue;
    }
    ASSERT_TRUE(s.extreme_tokens->gu_bos && s.extreme_tokens->gu_no_bos);
    EXPECT_EQ(s.extreme_tokens->gu_bos->windows, windows);
    EXPECT_EQ(s.extreme_tokens->gu_no_bos->windows, windows);
    EXPECT_TRUE(s.gu_sink_rate && s.gu_sink_rate_bos);
  }
}

TEST(GuProtocolWindows, AreDrawnFromTheTrainingPartWithOrWithoutBos) {
  std::vector<int32_t> train(100);
  for (int i = 0; i < 100; ++i) train[static_cast<size_t>(i)] = i + 1;
  const std::vector<int32_t> bos = gu_protocol_windows(train, 8, 5, true, 7);
  const std::vector<int32_t> packed = gu_protocol_windows(train, 8, 5, false, 7);
  ASSERT_EQ(bos.size(), 40u);
  ASSERT_EQ(packed.size(), 40u);
  for (int w = 0; w < 5; ++w) {
    EXPECT_EQ(bos[static_cast<size_t>(w * 8)], 0);  // BOS first
    for (int i = 1; i < 8; ++i) {  // then consecutive corpus ids
      EXPECT_EQ(bos[static_cast<size_t>(w * 8 + i)], bos[static_cast<size_t>(w * 8 + 1)] + i - 1);
      EXPECT_EQ(packed[static_cast<size_t>(w * 8 + i)], packed[static_cast<size_t>(w * 8)] + i);
    }
    EXPECT_GE(packed[static_cast<size_t>(w * 8)], 1);
    EXPECT_LE(packed[static_cast<size_t>(w * 8 + 7)], 100);
  }
  EXPECT_EQ(bos, gu_protocol_windows(train, 8, 5, true, 7));  // fixed seed, same windows
  EXPECT_THROW(gu_protocol_windows(std::span<const int32_t>(train).first(6), 8, 5, false, 7), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab
