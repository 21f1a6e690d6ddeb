// The induction task: BOS, a sequence without immediate repeats, its exact repeat (truncated when
// seq_len - 1 is odd), next-token targets, rows with a fresh next token no-op and rows with a copied one
// active, uniform content tokens, and errors that name their keys.
#include "data/induction_task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/observe/position_roles.h"

namespace sinklab {
namespace {

void check_samples(int T, int V) {
  const InductionTask task(T, V);
  const int P = task.period();
  EXPECT_EQ(P, T / 2);
  EXPECT_EQ(task.shape().input_dim, V);
  constexpr int N = 200;
  BatchBuffers buf(task.shape(), N);
  Rng rng(3);
  task.sample(N, rng, Split::train, buf.view());
  using namespace position_role;
  std::set<int32_t> seen;
  for (int n = 0; n < N; ++n) {
    const int32_t* x = buf.input_ids.data() + n * T;
    const int32_t* y = buf.target_ids.data() + n * T;
    const uint8_t* roles = buf.roles.data() + n * T;
    ASSERT_EQ(x[0], 0);
    ASSERT_EQ(roles[0], kSinkKey);
    for (int i = 1; i <= P; ++i) {
      ASSERT_TRUE(x[i] >= 1 && x[i] < V) << x[i];
      seen.insert(x[i]);
      if (i > 1) {
        ASSERT_NE(x[i], x[i - 1]) << "immediate repeat at " << i;
      }
      ASSERT_EQ(roles[i], i < P ? kNoOpRow : kActiveRow) << i;  // row P's target is x_1: active
    }
    for (int i = P + 1; i < T; ++i) {
      ASSERT_EQ(x[i], x[i - P]) << "second copy differs at " << i;
      ASSERT_EQ(roles[i], kActiveRow) << i;
    }
    for (int t = 0; t + 1 < T; ++t) ASSERT_EQ(y[t], x[t + 1]);
    ASSERT_EQ(y[T - 1], -1);
  }
  EXPECT_EQ(static_cast<int>(seen.size()), V - 1);  // every content token, never BOS
}

TEST(InductionTask, SecondCopyRepeatsTheFirst) { check_samples(33, 16); }

TEST(InductionTask, EvenSeqLenTruncatesTheSecondCopy) {
  check_samples(32, 8);  // P = 16: x = [BOS, r_0..r_15, r_0..r_14]
  check_samples(3, 3);   // P = 1: [BOS, r_0, r_0]
}

TEST(InductionTask, BaselinesAreChanceWithoutRepeats) {
  const InductionTask task(33, 18);
  const auto b = task.baselines();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(b[0].second, std::log(16.0));
  EXPECT_DOUBLE_EQ(b[1].second, 1.0 / 16);
}

TEST(InductionTask, ErrorsNameTheirKeys) {
  try {
    InductionTask(33, 2);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.vocab_size"});
  }
  try {
    InductionTask(2, 16);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.seq_len"});
  }
}

}  // namespace
}  // namespace sinklab
