// EvalSet: drawn once from Rng(eval_seed) with the eval split, reproducible, sliceable.
#include "data/eval_set.h"

#include <gtest/gtest.h>

#include <cstring>

#include "data/task.h"

namespace sinklab {
namespace {

TaskConfig small_config() {
  TaskConfig c;
  c.dim = 8;
  c.seq_len = 10;
  c.eval_trigger = 4;
  c.eval_samples = 50;
  c.eval_seed = 77;
  return c;
}

TEST(EvalSet, EqualsOneEvalBatchFromTheSeed) {
  const TaskConfig c = small_config();
  const auto task = make_task(c, false);
  const EvalSet set(*task, c);
  ASSERT_EQ(set.size(), 50);
  EXPECT_EQ(set.seq_len(), 10);
  EXPECT_EQ(set.input_dim(), 8);
  EXPECT_EQ(set.output_dim(), 8);

  std::vector<float> x(50 * 10 * 8), y(50 * 10 * 8);
  std::vector<TokenRole> roles(50 * 10);
  std::vector<int32_t> triggers(50);
  Rng rng(77);
  task->sample(50, rng, Split::eval, {x.data(), y.data(), roles.data(), triggers.data()});
  const ConstBatchView all = set.all();
  EXPECT_EQ(0, std::memcmp(all.inputs, x.data(), x.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(all.targets, y.data(), y.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(all.roles, roles.data(), roles.size()));
  for (int s = 0; s < 50; ++s) EXPECT_EQ(all.trigger_positions[s], 4);
}

TEST(EvalSet, SameSeedSameSetOtherSeedOtherSet) {
  const TaskConfig c = small_config();
  const auto task = make_task(c, true);
  const EvalSet a(*task, c), b(*task, c), other(*task, 50, 78);
  EXPECT_EQ(0, std::memcmp(a.all().inputs, b.all().inputs, 50 * 10 * 8 * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(a.all().targets, b.all().targets, 50 * 10 * 8 * sizeof(float)));
  EXPECT_NE(0, std::memcmp(a.all().inputs, other.all().inputs, 50 * 10 * 8 * sizeof(float)));
}

TEST(EvalSet, ViewsAreSubRanges) {
  const TaskConfig c = small_config();
  const auto task = make_task(c, false);
  const EvalSet set(*task, c);
  const ConstBatchView part = set.view(20, 5);
  EXPECT_EQ(part.inputs, set.all().inputs + 20 * 10 * 8);
  EXPECT_EQ(part.targets, set.all().targets + 20 * 10 * 8);
  EXPECT_EQ(part.roles, set.all().roles + 20 * 10);
  EXPECT_EQ(part.trigger_positions, set.all().trigger_positions + 20);
  EXPECT_EQ(part.roles[4], TokenRole::trigger);
  EXPECT_NO_THROW(set.view(50, 0));
  EXPECT_THROW(set.view(46, 5), TaskError);
  EXPECT_THROW(set.view(-1, 2), TaskError);
  EXPECT_THROW(EvalSet(*task, 0, 1), TaskError);
}

TEST(TaskFactory, BuildsByNameAndListsNamesOnError) {
  EXPECT_EQ(task_names(), std::vector<std::string>{"trigger_conditional"});
  TaskConfig c = small_config();
  EXPECT_EQ(make_task(c, false)->name(), "trigger_conditional");
  c.name = std::string("copy");
  try {
    make_task(c, false);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_STREQ(e.what(), "unknown task 'copy'; known tasks: trigger_conditional");
  }
}

}  // namespace
}  // namespace sinklab
