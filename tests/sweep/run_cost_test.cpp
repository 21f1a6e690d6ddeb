#include "sweep/run_cost.h"

#include <gtest/gtest.h>

namespace sinklab::sweep {
namespace {

TEST(RunCost, GrowsWithEveryDimensionThatAddsWork) {
  RunConfig base;
  base.model.d_model = 16;
  base.task.seq_len = 16;
  const double c = step_cost(base);
  EXPECT_GT(c, 0);
  RunConfig deeper = base;
  deeper.model.layers = 2;
  EXPECT_GT(step_cost(deeper), c);
  RunConfig wider = base;
  wider.model.d_model = 32;
  EXPECT_GT(step_cost(wider), c);
  RunConfig longer = base;
  longer.task.seq_len = 32;
  EXPECT_GT(step_cost(longer), c);
  RunConfig bigger_batch = base;
  bigger_batch.train.batch_size = base.train.batch_size * 2;
  EXPECT_DOUBLE_EQ(step_cost(bigger_batch), 2 * c);
  RunConfig with_mlp = base;
  with_mlp.model.mlp_hidden = 64;
  EXPECT_GT(step_cost(with_mlp), c);
}

TEST(RunCost, ExpectedCostIsStepCostTimesTheStepLimit) {
  RunConfig config;
  config.train.max_steps = 1234;
  EXPECT_DOUBLE_EQ(expected_run_cost(config), 1234 * step_cost(config));
}

TEST(RunCost, LongestFirstKeepsPlanOrderAmongEqualCosts) {
  EXPECT_EQ(longest_first({1, 5, 3, 5, 1, 2}), (std::vector<std::size_t>{1, 3, 2, 5, 0, 4}));
  EXPECT_TRUE(longest_first({}).empty());
}

}  // namespace
}  // namespace sinklab::sweep
