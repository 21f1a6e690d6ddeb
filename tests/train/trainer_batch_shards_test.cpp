// train.batch_shards in the trainer (train/sharded_gradient.h): the batch gradient to rounding in one
// process, and bit-identical weights, checkpoint and summary when the shards are spread over ranks
// (threads with an in-process exchange here; a real mpirun in tests/mpi/mpi_train_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "config_loading/config_error.h"
#include "config_loading/config_loader.h"
#include "run_files/run_summary.h"
#include "tests/support/test_dir.h"
#include "tests/train/thread_shard_exchange.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig config_with(int batch, int shards, const std::string& optimizer) {
  return parse_run_config(
      "model: {layers: 2, heads: 2, residual: true, attention: {normalizer: softmax}}\n"
      "optimizer: " +
          optimizer + "\ntrain: {batch_size: " + std::to_string(batch) + ", batch_shards: " + std::to_string(shards) +
          ", max_steps: 9, log_every: 3, eval_every: 6, checkpoint_every: 4, stop_max_abs_error: 0}\n"
          "task: {eval_samples: 32}\nanalysis: {eval_attention_samples: 16, snapshot_every: 0}\n",
      "shards.yaml", {}, registered_vocabulary());
}

TEST(TrainerBatchShards, ShardsGiveTheWholeBatchGradientToRounding) {
  const std::string sgd = "{name: sgd, lr: 0.5, schedule: constant}";
  Trainer whole(config_with(16, 1, sgd)), sharded(config_with(16, 4, sgd));
  for (int step = 0; step < 3; ++step) {
    const double a = whole.train_step(step, false), b = sharded.train_step(step, false);
    EXPECT_NEAR(a, b, 1e-5 * std::abs(a)) << "step " << step;  // the same samples: the loss is the shards' mean
  }
  const auto x = whole.parameters().values(), y = sharded.parameters().values();
  ASSERT_EQ(x.size(), y.size());
  double largest = 0, differs = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    largest = std::max(largest, static_cast<double>(std::abs(x[i])));
    differs = std::max(differs, static_cast<double>(std::abs(x[i] - y[i])));
  }
  EXPECT_LT(differs, 1e-5 * largest);
  EXPECT_GT(differs, 0.0) << "a different summation order should round differently somewhere";
}

TEST(TrainerBatchShards, RanksAreBitIdenticalToOneProcessWithTheSameShards) {
  const std::string adam = "{name: adamw, lr: 3.0e-3, weight_decay: 0.1}";
  const RunConfig config = config_with(12, 6, adam);
  const fs::path one = testing::fresh_test_dir() / "one", ranked = one.parent_path() / "ranks";
  fs::create_directories(one);
  TrainOptions o;
  o.quiet = true;
  o.run_dir = one;
  Trainer alone(config);
  const RunSummary expected = alone.run(o);

  for (const int ranks : {2, 3}) {
    fs::remove_all(ranked);
    fs::create_directories(ranked);
    testing::Mailboxes boxes(ranks);
    std::vector<std::vector<float>> weights(static_cast<size_t>(ranks));
    RunSummary first;
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        testing::ThreadShardExchange exchange(boxes, r);
        Trainer t(config);
        TrainOptions ro;
        ro.quiet = true;
        ro.exchange = &exchange;
        if (r == 0) ro.run_dir = ranked;
        const RunSummary s = t.run(ro);
        if (r == 0) first = s;
        const auto v = t.parameters().values();
        weights[static_cast<size_t>(r)].assign(v.begin(), v.end());
      });
    }
    for (auto& t : threads) t.join();
    const auto v = alone.parameters().values();
    const std::vector<float> expected_weights(v.begin(), v.end());
    for (int r = 0; r < ranks; ++r)
      EXPECT_EQ(weights[static_cast<size_t>(r)], expected_weights) << ranks << " ranks, rank " << r;
    EXPECT_EQ(testing::read_text(ranked / "checkpoint.bin"), testing::read_text(one / "checkpoint.bin"))
        << ranks << " ranks";
    EXPECT_EQ(first.steps, expected.steps);
    EXPECT_EQ(first.train_loss, expected.train_loss);
    EXPECT_EQ(first.eval_mse, expected.eval_mse);
    EXPECT_EQ(first.sink_rate, expected.sink_rate);
    // Rank 0 logs what one process logs (the same steps and losses).
    const auto a = read_metrics(one / "metrics.jsonl"), b = read_metrics(ranked / "metrics.jsonl");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].step, b[i].step);
      EXPECT_EQ(a[i].loss, b[i].loss);
      EXPECT_EQ(a[i].grad_norm, b[i].grad_norm);
    }
  }
}

TEST(TrainerBatchShards, ShardsThatDoNotDivideTheBatchAreAConfigError) {
  try {
    config_with(16, 5, "{lr: 1.0e-3}");
    FAIL() << "5 shards of a batch of 16 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("train.batch_shards (5) must divide train.batch_size (16)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sinklab
