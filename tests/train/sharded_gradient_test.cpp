// ShardedGradient (train/sharded_gradient.h): shards summed left to right whatever the number of ranks,
// the mean taken once, the step's numbers combined, and ranks that do not divide the shards refused.
#include "train/sharded_gradient.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/train/thread_shard_exchange.h"

namespace sinklab {
namespace {

// Shard gradients whose float sum depends on the grouping (the float spacing at 1e8 is 8, so 1e8 + 1 and
// -1e8 + 1 round back): left to right, element 0 sums to 3 and element 1 to 2. Three ranks that summed
// their own pair first would get 2 in element 0, two ranks that summed their own three first 0 in
// element 1, a right-to-left sum 0 in element 0.
std::vector<std::vector<float>> order_sensitive_shards() {
  return {{1.0e8f, 1.0e8f}, {1.0f, 0.0f}, {-1.0e8f, 0.0f}, {1.0f, -1.0e8f}, {1.0f, 1.0f}, {1.0f, 1.0f}};
}

ShardScore score_of_shard(int s) {
  return {1.0 + s, 0.1 * s, 10.0, static_cast<double>(s), 0.0};
}

TEST(ShardedGradient, OneProcessSumsShardsLeftToRightThenTakesTheMean) {
  const auto shards = order_sensitive_shards();
  ShardedGradient g(2, 6, nullptr);
  EXPECT_EQ(g.first_shard(), 0);
  EXPECT_EQ(g.local_shards(), 6);
  EXPECT_TRUE(g.primary());
  for (int s = 0; s < 6; ++s) g.add_shard(s, shards[static_cast<size_t>(s)], score_of_shard(s));
  std::vector<float> out(2);
  const StepTotals t = g.finish(out, false);
  EXPECT_EQ(out[0], 3.0f * (1.0f / 6.0f));
  EXPECT_EQ(out[1], 2.0f * (1.0f / 6.0f));
  EXPECT_DOUBLE_EQ(t.loss, (1 + 2 + 3 + 4 + 5 + 6) / 6.0);
  EXPECT_DOUBLE_EQ(t.sum.max_abs_error, 0.5);
  EXPECT_EQ(t.sum.scored, 60.0);
  EXPECT_EQ(t.sum.correct, 15.0);
  EXPECT_EQ(t.sum.interrupt, 0.0);
  // The next step starts from zero again.
  for (int s = 0; s < 6; ++s) g.add_shard(s, std::vector<float>{1.0f, 1.0f}, score_of_shard(0));
  g.finish(out, true);
  EXPECT_EQ(out[0], 6.0f * (1.0f / 6.0f));
}

// Every rank of an R-rank job, as threads: the gradient and numbers each rank ends with.
struct RankResult {
  std::vector<float> gradient;
  StepTotals totals;
};

std::vector<RankResult> run_ranks(int ranks, const std::vector<bool>& interrupted) {
  const auto shards = order_sensitive_shards();
  testing::Mailboxes boxes(ranks);
  std::vector<RankResult> results(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      testing::ThreadShardExchange exchange(boxes, r);
      ShardedGradient g(2, 6, &exchange);
      EXPECT_EQ(g.local_shards(), 6 / ranks);
      EXPECT_EQ(g.first_shard(), r * (6 / ranks));
      EXPECT_EQ(g.primary(), r == 0);
      for (int j = 0; j < g.local_shards(); ++j) {
        const int s = g.first_shard() + j;
        g.add_shard(j, shards[static_cast<size_t>(s)], score_of_shard(s));
      }
      RankResult& out = results[static_cast<size_t>(r)];
      out.gradient.assign(2, 0.0f);
      out.totals = g.finish(out.gradient, interrupted[static_cast<size_t>(r)]);
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

TEST(ShardedGradient, AnyNumberOfRanksGivesEveryRankTheOneProcessGradient) {
  ShardedGradient one(2, 6, nullptr);
  const auto shards = order_sensitive_shards();
  for (int s = 0; s < 6; ++s) one.add_shard(s, shards[static_cast<size_t>(s)], score_of_shard(s));
  std::vector<float> expected(2);
  const StepTotals expected_totals = one.finish(expected, false);
  ASSERT_EQ(expected, (std::vector<float>{3.0f * (1.0f / 6.0f), 2.0f * (1.0f / 6.0f)}));
  for (const int ranks : {2, 3, 6}) {
    const auto results = run_ranks(ranks, std::vector<bool>(static_cast<size_t>(ranks), false));
    for (int r = 0; r < ranks; ++r) {
      const RankResult& got = results[static_cast<size_t>(r)];
      EXPECT_EQ(got.gradient, expected) << ranks << " ranks, rank " << r;  // bit for bit: {3/6, 2/6}
      EXPECT_EQ(got.totals.loss, expected_totals.loss) << ranks << " ranks, rank " << r;
      EXPECT_EQ(got.totals.sum.max_abs_error, expected_totals.sum.max_abs_error);
      EXPECT_EQ(got.totals.sum.scored, expected_totals.sum.scored);
      EXPECT_EQ(got.totals.sum.correct, expected_totals.sum.correct);
      EXPECT_EQ(got.totals.sum.interrupt, 0.0);
    }
  }
}

TEST(ShardedGradient, ASignalOnAnyRankReachesEveryRank) {
  for (const int signalled : {0, 1, 2}) {
    std::vector<bool> interrupted(3, false);
    interrupted[static_cast<size_t>(signalled)] = true;
    for (const RankResult& got : run_ranks(3, interrupted))
      EXPECT_EQ(got.totals.sum.interrupt, 1.0) << "signal on rank " << signalled;
  }
}

TEST(ShardedGradient, RanksThatDoNotDivideTheShardsAreRefused) {
  testing::Mailboxes boxes(4);
  testing::ThreadShardExchange exchange(boxes, 0);
  try {
    ShardedGradient g(2, 6, &exchange);
    FAIL() << "6 shards over 4 ranks accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("train.batch_shards (6) must be a multiple of the 4 MPI ranks"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sinklab
