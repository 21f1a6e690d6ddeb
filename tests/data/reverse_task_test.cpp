// The reverse task: the second half is the first backwards after the separator, only the rows that
// predict a reversed token are scored and active, an odd length truncates the reversal, and bad
// settings name their keys.
#include "data/reverse_task.h"

#include <gtest/gtest.h>

#include <set>

#include "core/observe/position_roles.h"

namespace sinklab {
namespace {

using namespace position_role;

TEST(ReverseTask, TheSecondHalfIsTheFirstBackwardsAndEachTargetSitsAtTheMirrorPosition) {
  const int T = 12;  // P = 5: BOS, r_1 .. r_5, SEP, r_5 .. r_1
  const ReverseTask task(T, 6);
  ASSERT_EQ(task.length(), 5);
  const TaskShape s = task.shape();
  EXPECT_EQ(s.input, TaskInput::tokens);
  EXPECT_EQ(s.loss, TaskLoss::cross_entropy);
  EXPECT_EQ(s.input_dim, 6);
  EXPECT_EQ(s.output_dim, 6);
  BatchBuffers b(s, 50);
  Rng rng(4);
  task.sample(50, rng, Split::train, b.view());
  std::set<int32_t> seen;
  for (int n = 0; n < 50; ++n) {
    const int32_t* x = b.input_ids.data() + n * T;
    const int32_t* y = b.target_ids.data() + n * T;
    const uint8_t* roles = b.roles.data() + n * T;
    EXPECT_EQ(x[0], 0);
    EXPECT_EQ(roles[0], kSinkKey);
    EXPECT_EQ(y[0], -1);
    for (int i = 1; i <= 5; ++i) {
      ASSERT_GE(x[i], 2) << "neither BOS nor the separator inside r";
      seen.insert(x[i]);
      EXPECT_EQ(x[12 - i], x[i]) << "r_" << i << " at its mirror position";
      EXPECT_EQ(y[i], -1);
      EXPECT_EQ(roles[i], kNoOpRow);
    }
    EXPECT_EQ(x[6], ReverseTask::kSeparator);
    for (int t = 6; t <= 10; ++t) {
      EXPECT_EQ(y[t], x[t + 1]);
      EXPECT_EQ(y[t], x[11 - t]) << "the answer of row " << t << " sits at position 2P + 1 - t";
      EXPECT_EQ(roles[t], kActiveRow);
    }
    EXPECT_EQ(y[11], -1);
    EXPECT_EQ(roles[11], kNoOpRow);
  }
  EXPECT_EQ(seen, (std::set<int32_t>{2, 3, 4, 5}));  // every content token
  const auto baselines = task.baselines();
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_DOUBLE_EQ(baselines[0].second, 0.25);
}

TEST(ReverseTask, AnOddLengthLacksTheLastReversedToken) {
  const ReverseTask task(7, 16);  // P = 3: BOS, r_1 r_2 r_3, SEP, r_3 r_2
  ASSERT_EQ(task.length(), 3);
  BatchBuffers b(task.shape(), 3);
  Rng rng(9);
  task.sample(3, rng, Split::eval, b.view());
  for (int n = 0; n < 3; ++n) {
    const int32_t* x = b.input_ids.data() + n * 7;
    const int32_t* y = b.target_ids.data() + n * 7;
    const uint8_t* roles = b.roles.data() + n * 7;
    EXPECT_EQ(x[4], ReverseTask::kSeparator);
    EXPECT_EQ(x[5], x[3]);
    EXPECT_EQ(x[6], x[2]);
    EXPECT_EQ((std::vector<int32_t>(y, y + 7)), (std::vector<int32_t>{-1, -1, -1, -1, x[5], x[6], -1}));
    EXPECT_EQ((std::vector<uint8_t>(roles, roles + 7)),
              (std::vector<uint8_t>{kSinkKey, kNoOpRow, kNoOpRow, kNoOpRow, kActiveRow, kActiveRow, kNoOpRow}));
  }
}

TEST(ReverseTask, BadSettingsNameTheirKeys) {
  try {
    ReverseTask(3, 16);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.seq_len"});
  }
  try {
    ReverseTask(16, 2);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.vocab_size"});
  }
}

}  // namespace
}  // namespace sinklab
