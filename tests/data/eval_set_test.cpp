// EvalSet: drawn once from Rng(eval_seed) with the eval split, reproducible, sliceable.
#include "data/eval_set.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstring>

#include "core/observe/position_roles.h"
#include "data/task_registry.h"

namespace sinklab {
namespace {

TaskConfig small_config() {
  TaskConfig c;
  c.options.set("dim", int64_t{8});
  c.seq_len = 10;
  c.options.set("eval_trigger", int64_t{4});
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
  std::vector<uint8_t> roles(50 * 10);
  Rng rng(77);
  task->sample(50, rng, Split::eval, {x.data(), nullptr, y.data(), nullptr, roles.data()});
  const ConstBatchView all = set.all();
  EXPECT_EQ(0, std::memcmp(all.inputs, x.data(), x.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(all.targets, y.data(), y.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(all.roles, roles.data(), roles.size()));
  for (int s = 0; s < 50; ++s) EXPECT_EQ(all.roles[s * 10 + 4], position_role::kActiveRow);
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
  EXPECT_EQ(part.roles[4], position_role::kActiveRow);
  EXPECT_NO_THROW(set.view(50, 0));
  EXPECT_THROW(set.view(46, 5), TaskError);
  EXPECT_THROW(set.view(-1, 2), TaskError);
  EXPECT_THROW(EvalSet(*task, 0, 1), TaskError);
}

TEST(TaskFactory, BuildsByNameAndListsNamesOnError) {
  const std::vector<std::string> names = task_names();
  for (const char* shipped : {"trigger_conditional", "copy", "text_lm", "bigram_backcopy", "induction"})
    EXPECT_NE(std::find(names.begin(), names.end(), shipped), names.end()) << shipped;
  std::string known;  // every registered task, in registration order (a new task needs no edit here)
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  TaskConfig c = small_config();
  EXPECT_EQ(make_task(c, false)->name(), "trigger_conditional");
  c.name = std::string("no_such_task");
  try {
    make_task(c, false);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown task 'no_such_task'; known tasks: " + known);
  }
}

}  // namespace
}  // namespace sinklab

namespace sinklab {
namespace {

// A pass holds at most the attention entries of 250 inputs of T = 16; never less than one input.
TEST(EvaluationChunk, ShrinksWithTheSquareOfTheSequenceLength) {
  EXPECT_EQ(evaluation_chunk(16), 250);
  EXPECT_EQ(evaluation_chunk(8), 250);      // never more than requested
  EXPECT_EQ(evaluation_chunk(16, 100), 100);
  EXPECT_EQ(evaluation_chunk(64), 15);      // 64000 / 4096
  EXPECT_EQ(evaluation_chunk(128), 3);
  EXPECT_EQ(evaluation_chunk(1024), 1);
  EXPECT_EQ(evaluation_chunk(65536), 1);
}

}  // namespace
}  // namespace sinklab
