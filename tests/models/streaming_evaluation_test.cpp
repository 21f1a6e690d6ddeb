// Streaming evaluation (models/streaming_evaluation.h) on tiny random text_lm models: the loss at every
// position is the loss of one forward pass over the hand-built window [first K tokens, last W - K
// tokens]; a window as long as the stream is dense attention; W = the trained context with K = 0 is the
// dense baseline where both see the same tokens; the dense baseline is the training objective's own
// cross-entropy on the run's windows; K = 0 and K = W - 1 differ once tokens are evicted; bad settings
// are refused with one message naming the setting.
#include "models/streaming_evaluation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config_loading/config_loader.h"
#include "core/rng.h"
#include "core/thread_count.h"
#include "data/task_registry.h"
#include "data/text_lm_task.h"
#include "models/model_loader.h"
#include "models/task_objective.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

constexpr int kSeqLen = 16;  // trained context C = 15

// 600 pseudo-random bytes from "abcdefgh ": 9 distinct bytes + BOS = 10 ids; the last half is validation.
std::string corpus_path() {
  const fs::path path = testing::test_file("streaming_corpus.txt");
  Rng rng(3);
  std::string text;
  for (int i = 0; i < 600; ++i) text += "abcdefgh "[rng.below(9)];
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

RunConfig text_lm_config(const std::string& positional) {
  set_thread_count(1);
  return parse_run_config(
      "model: {d_model: 16, layers: 2, heads: 2, residual: true, norm: layer_norm, input: tokens, vocab_size: 10,\n"
      "        mlp_hidden: 32, output_head: true, positional: " + positional + ", init_std: 0.5}\n"
      "task: {name: text_lm, corpus: " + corpus_path() + ", tokenizer: char, val_fraction: 0.5, seq_len: " +
          std::to_string(kSeqLen) + ", eval_samples: 4}\n"
      "analysis: {eval_attention_samples: 4}\n",
      "streaming.yaml", {}, registered_vocabulary());
}

struct TinyRun {
  explicit TinyRun(const std::string& positional) : config(text_lm_config(positional)), model(build_model(config)),
                                                    task(make_task(config.task, true)) {}
  RunConfig config;
  std::unique_ptr<Model> model;
  std::unique_ptr<Task> task;
};

// The loss of the last position of one forward pass over `window`, predicting `target`.
double last_position_loss(const Model& model, const std::vector<int32_t>& window, int32_t target) {
  Graph g;
  const NoGradGuard no_grad(g);
  const auto n = static_cast<int64_t>(window.size());
  const Tensor out = model.transformer().forward_tokens(g, window.data(), 1, n);
  const int classes = model.shape().output_dim;
  const float* row = out.data() + (n - 1) * classes;
  double sum = 0.0;
  for (int k = 0; k < classes; ++k) sum += std::exp(static_cast<double>(row[k]));
  return std::log(sum) - row[target];
}

TEST(StreamingEvaluation, StreamIsBosThenTheValidationPartsFirstTokens) {
  const TinyRun run("learned");
  const auto& lm = dynamic_cast<const TextLmTask&>(*run.task);
  const std::vector<int32_t> stream = held_out_stream(*run.task, 50, true);
  ASSERT_EQ(stream.size(), 51u);
  EXPECT_EQ(stream[0], 0);
  const auto validation = lm.corpus_ids().subspan(lm.train_tokens());
  EXPECT_EQ(std::vector<int32_t>(stream.begin() + 1, stream.end()),
            std::vector<int32_t>(validation.begin(), validation.begin() + 50));
  EXPECT_EQ(held_out_stream(*run.task, 50, false), std::vector<int32_t>(validation.begin(), validation.begin() + 50));
  EXPECT_EQ(default_stream_tokens(*run.task, kSeqLen), 4 * kSeqLen);
}

TEST(StreamingEvaluation, EachLossIsTheLossOfTheHandBuiltWindow) {
  for (const char* positional : {"learned", "rope"}) {
    SCOPED_TRACE(positional);
    const TinyRun run(positional);
    const std::vector<int32_t> s = held_out_stream(*run.task, 40, true);
    StreamingEvaluator evaluator(*run.model, s, true);
    ASSERT_EQ(evaluator.trained_context(), kSeqLen - 1);
    constexpr int W = 6, K = 2;
    const std::vector<double> losses = evaluator.windowed_losses({W, K});
    ASSERT_EQ(losses.size(), 40u);
    for (const int t : {0, 3, 5, 6, 7, 20, 39}) {
      std::vector<int32_t> window;
      if (t < W) {
        window.assign(s.begin(), s.begin() + t + 1);  // the stream so far
      } else {
        window = {s[0], s[1]};  // the K kept tokens (BOS and the first text token) ...
        window.insert(window.end(), s.begin() + t - (W - K) + 1, s.begin() + t + 1);  // ... then the last W - K
      }
      ASSERT_EQ(window.back(), s[static_cast<std::size_t>(t)]);
      EXPECT_NEAR(losses[static_cast<std::size_t>(t)],
                  last_position_loss(*run.model, window, s[static_cast<std::size_t>(t) + 1]), 1e-5)
          << "t = " << t;
    }
  }
}

TEST(StreamingEvaluation, AWindowAsLongAsTheStreamIsDenseAttention) {
  const TinyRun run("learned");
  const std::vector<int32_t> s = held_out_stream(*run.task, 12, true);  // shorter than the trained context
  StreamingEvaluator evaluator(*run.model, s, true);
  const std::vector<double> dense = evaluator.dense_losses();
  ASSERT_EQ(dense.size(), 12u);
  for (const StreamWindow setting : {StreamWindow{12, 0}, StreamWindow{13, 4}, StreamWindow{15, 14}}) {
    const std::vector<double> windowed = evaluator.windowed_losses(setting);
    for (std::size_t t = 0; t < dense.size(); ++t) {
      EXPECT_NEAR(windowed[t], dense[t], 1e-5) << "W " << setting.window << ", K " << setting.keep_first << ", t " << t;
      EXPECT_NEAR(dense[t],
                  last_position_loss(*run.model, {s.begin(), s.begin() + static_cast<std::ptrdiff_t>(t) + 1}, s[t + 1]),
                  1e-5);
    }
  }
}

TEST(StreamingEvaluation, TheTrainedContextWithoutKeptTokensReproducesTheDenseBaselineWhereTheyAgree) {
  for (const bool bos : {true, false}) {
    SCOPED_TRACE(bos);
    const TinyRun run("learned");
    const std::vector<int32_t> s = held_out_stream(*run.task, 100, bos);
    StreamingEvaluator evaluator(*run.model, s, bos);
    const int C = evaluator.trained_context();
    const std::vector<double> dense = evaluator.dense_losses();
    const std::vector<double> windowed = evaluator.windowed_losses({C, 0});
    for (int t = 0; t < C; ++t)
      EXPECT_NEAR(windowed[static_cast<std::size_t>(t)], dense[static_cast<std::size_t>(t)], 1e-5) << t;
    // Beyond the first window the dense baseline restarts its windows and the sliding window does not.
    EXPECT_GT(
        std::fabs(mean_loss(windowed, static_cast<std::size_t>(C)) - mean_loss(dense, static_cast<std::size_t>(C))),
        1e-4);
  }
}

// The dense baseline is the training objective's cross-entropy (models/task_objective.h) on the run's
// windows: BOS then C consecutive stream tokens, the last position unscored.
TEST(StreamingEvaluation, TheDenseBaselineIsTheTrainingObjectiveOnTheRunsWindows) {
  const TinyRun run("learned");
  constexpr int kWindows = 5;
  const int C = kSeqLen - 1;
  const std::vector<int32_t> s = held_out_stream(*run.task, kWindows * C, true);
  StreamingEvaluator evaluator(*run.model, s, true);
  const double baseline = mean_loss(evaluator.dense_losses());

  std::vector<int32_t> ids(kWindows * kSeqLen), targets(kWindows * kSeqLen, -1);
  std::vector<uint8_t> roles(kWindows * kSeqLen, 0);
  for (int j = 0; j < kWindows; ++j) {
    ids[static_cast<std::size_t>(j * kSeqLen)] = 0;  // BOS
    for (int i = 1; i < kSeqLen; ++i)
      ids[static_cast<std::size_t>(j * kSeqLen + i)] = s[static_cast<std::size_t>(j * C + i)];
    for (int i = 0; i < C; ++i)
      targets[static_cast<std::size_t>(j * kSeqLen + i)] = ids[static_cast<std::size_t>(j * kSeqLen + i + 1)];
  }
  Graph g;
  const NoGradGuard no_grad(g);
  const TaskObjective objective(run.task->shape());
  const BatchScore score = objective.run(g, run.model->transformer(),
                                         {nullptr, ids.data(), nullptr, targets.data(), roles.data()}, kWindows);
  ASSERT_EQ(score.scored, kWindows * C);
  EXPECT_NEAR(baseline, score.loss.data()[0], 1e-5);
}

TEST(StreamingEvaluation, KeepingTokensChangesTheLossOnlyOnceTokensAreEvicted) {
  const TinyRun run("rope");
  const std::vector<int32_t> s = held_out_stream(*run.task, 60, true);
  StreamingEvaluator evaluator(*run.model, s, true);
  constexpr int W = 8;
  const std::vector<double> sliding = evaluator.windowed_losses({W, 0});
  const std::vector<double> kept = evaluator.windowed_losses({W, W - 1});
  for (int t = 0; t < W; ++t) EXPECT_EQ(sliding[static_cast<std::size_t>(t)], kept[static_cast<std::size_t>(t)]) << t;
  int differ = 0;
  for (std::size_t t = W; t < sliding.size(); ++t) differ += std::fabs(sliding[t] - kept[t]) > 1e-4;
  EXPECT_GT(differ, 40) << "of " << sliding.size() - W << " positions past the window";
  EXPECT_TRUE(std::isnan(mean_loss(sliding, sliding.size())));
}

template <typename F>
void expect_setting_error(F&& f, const std::string& setting, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming " << setting;
  } catch (const StreamSettingError& e) {
    EXPECT_EQ(e.setting(), setting) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(StreamingEvaluation, BadSettingsAreRefusedNamingTheSetting) {
  const TinyRun run("learned");
  const std::vector<int32_t> s = held_out_stream(*run.task, 40, true);
  StreamingEvaluator evaluator(*run.model, s, true);
  expect_setting_error([&] { evaluator.windowed_losses({4, 4}); }, "keep_first", "need a window W > K");
  expect_setting_error([&] { evaluator.windowed_losses({4, 9}); }, "keep_first", "need a window W > K");
  expect_setting_error([&] { evaluator.windowed_losses({4, -1}); }, "keep_first", "must be >= 0");
  expect_setting_error(
      [&] {
        evaluator.windowed_losses({16, 0});
      },
      "window", "window 16 is longer than the 15 tokens this model was trained to predict from (learned positions");
  EXPECT_NO_THROW(evaluator.windowed_losses({15, 0}));
  expect_setting_error([&] { held_out_stream(*run.task, 0, true); }, "tokens", "leaves nothing to score");
  expect_setting_error([&] { held_out_stream(*run.task, 1, false); }, "tokens", "leaves nothing to score");
  EXPECT_EQ(held_out_stream(*run.task, 1, true).size(), 2u);
  expect_setting_error([&] { held_out_stream(*run.task, 301, true); }, "tokens", "more than the validation part");
  EXPECT_NO_THROW(held_out_stream(*run.task, 300, true));

  const RunConfig copy = parse_run_config(
      "model: {d_model: 16, layers: 1, heads: 1, input: tokens, vocab_size: 7, output_head: true, positional: "
      "learned}\n"
      "task: {name: copy, vocab_size: 7, offset: 1, seq_len: 8, eval_samples: 4}\n"
      "analysis: {eval_attention_samples: 4}\n",
      "copy.yaml", {}, registered_vocabulary());
  const std::unique_ptr<Task> copy_task = make_task(copy.task, true);
  try {
    held_out_stream(*copy_task, 10, true);
    ADD_FAILURE() << "a copy task has no held-out text";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs a text_lm run"), std::string::npos) << e.what();
  }
}

TEST(StreamingEvaluation, RopeTakesAnyWindowTheModelIsBuiltFor) {
  const TinyRun run("rope");
  const std::vector<int32_t> s = held_out_stream(*run.task, 40, true);
  StreamingEvaluator evaluator(*run.model, s, true);
  EXPECT_NO_THROW(evaluator.windowed_losses({kSeqLen, 1})) << "rope: past the trained context";
  expect_setting_error(
      [&] {
        evaluator.windowed_losses({kSeqLen + 1, 1});
      },
      "window", "longer than the model's 16 positions");
}

TEST(StreamingEvaluation, MeanLossIsOverThePositionsFromTheGivenOne) {
  const std::vector<double> losses{1.0, 2.0, 3.0, 6.0};
  EXPECT_DOUBLE_EQ(mean_loss(losses), 3.0);
  EXPECT_DOUBLE_EQ(mean_loss(losses, 2), 4.5);
  EXPECT_TRUE(std::isnan(mean_loss(losses, 4)));
}

}  // namespace
}  // namespace sinklab
