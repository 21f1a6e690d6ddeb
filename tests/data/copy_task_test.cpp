// The copy task: targets are the ids `offset` positions back, unscored before that, roles as documented,
// ids uniform over the content tokens, and inconsistent settings name their keys.
#include "data/copy_task.h"

#include <gtest/gtest.h>

#include <set>

#include "core/observe/position_roles.h"

namespace sinklab {
namespace {

TEST(CopyTask, TargetsCopyTheTokenOffsetPositionsBack) {
  const CopyTask task(12, 7, 3);
  const TaskShape s = task.shape();
  EXPECT_EQ(s.input, TaskInput::tokens);
  EXPECT_EQ(s.loss, TaskLoss::cross_entropy);
  EXPECT_EQ(s.input_dim, 7);
  EXPECT_EQ(s.output_dim, 7);
  BatchBuffers b(s, 50);
  Rng rng(4);
  task.sample(50, rng, Split::train, b.view());
  std::set<int32_t> seen;
  using namespace position_role;
  for (int n = 0; n < 50; ++n) {
    const int32_t* ids = b.input_ids.data() + n * 12;
    const int32_t* y = b.target_ids.data() + n * 12;
    const uint8_t* roles = b.roles.data() + n * 12;
    EXPECT_EQ(ids[0], 0);
    EXPECT_EQ(roles[0], kSinkKey);
    for (int i = 1; i < 12; ++i) {
      ASSERT_GE(ids[i], 1);
      seen.insert(ids[i]);
      if (i <= 3) {
        EXPECT_EQ(y[i], -1);
        EXPECT_EQ(roles[i], kNoOpRow);
      } else {
        EXPECT_EQ(y[i], ids[i - 3]);
        EXPECT_EQ(roles[i], kActiveRow);
      }
    }
    EXPECT_EQ(y[0], -1);
  }
  EXPECT_EQ(seen, (std::set<int32_t>{1, 2, 3, 4, 5, 6}));  // every content token, never BOS
}

TEST(CopyTask, InconsistentSettingsNameTheirKeys) {
  try {
    CopyTask(5, 8, 4);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), (std::vector<std::string>{"task.offset", "task.seq_len"}));
  }
  try {
    CopyTask(5, 1, 1);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.vocab_size"});
  }
}

}  // namespace
}  // namespace sinklab
