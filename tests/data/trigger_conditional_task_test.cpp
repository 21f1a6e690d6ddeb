// Invariants of the trigger-conditional generator (docs/tasks.md), its documented draw
// order, reproducibility, and that sampling does not allocate.
#include "data/trigger_conditional_task.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "core/cpu/isa_level.h"
#include "core/observe/position_roles.h"
#include "core/thread_count.h"
#include "tests/data/allocation_counter.h"

namespace sinklab {
namespace {

// Owns buffers for `batch` samples of a task.
struct Batch {
  Batch(const Task& task, int batch)
      : t(task.seq_len()),
        d(task.input_dim()),
        inputs(static_cast<std::size_t>(batch) * t * d),
        targets(static_cast<std::size_t>(batch) * t * task.output_dim()),
        roles(static_cast<std::size_t>(batch) * t),
        triggers(static_cast<std::size_t>(batch)) {}
  BatchView view() { return {inputs.data(), nullptr, targets.data(), nullptr, roles.data()}; }
  // The trigger of each sample: its active row (-1 if none).
  void find_triggers() {
    for (std::size_t b = 0; b < triggers.size(); ++b) {
      triggers[b] = -1;
      for (int i = 0; i < t; ++i)
        if (roles[b * t + i] == position_role::kActiveRow) triggers[b] = i;
    }
  }
  float x(int b, int i, int c) const { return inputs[(static_cast<std::size_t>(b) * t + i) * d + c]; }
  float y(int b, int i, int c) const { return targets[(static_cast<std::size_t>(b) * t + i) * d + c]; }
  uint8_t role(int b, int i) const { return roles[static_cast<std::size_t>(b) * t + i]; }

  int t, d;
  std::vector<float> inputs, targets;
  std::vector<uint8_t> roles;
  std::vector<int32_t> triggers;
};

TriggerTaskSettings config(int dim = 16, int seq_len = 16) {
  TriggerTaskSettings c;
  c.dim = dim;
  c.seq_len = seq_len;
  return c;
}

Batch sample(const Task& task, int batch, uint64_t seed, Split split) {
  Batch out(task, batch);
  Rng rng(seed);
  task.sample(batch, rng, split, out.view());
  out.find_triggers();
  return out;
}

TEST(TriggerConditionalTask, ShapesAndName) {
  const TriggerConditionalTask task(config(12, 9), false);
  EXPECT_EQ(task.name(), "trigger_conditional");
  EXPECT_EQ(task.seq_len(), 9);
  EXPECT_EQ(task.input_dim(), 12);
  EXPECT_EQ(task.output_dim(), 12);
  EXPECT_EQ(task.trigger_max(), 8);  // -1 resolves to seq_len - 1
}

TEST(TriggerConditionalTask, TokensFollowTheTable) {
  const TriggerConditionalTask task(config(), false);
  const Batch b = sample(task, 256, 11, Split::train);
  const int d = 16;
  float lo = 1, hi = -1;
  for (int s = 0; s < 256; ++s) {
    // BOS is e_0.
    EXPECT_EQ(b.role(s, 0), position_role::kSinkKey);
    EXPECT_EQ(b.x(s, 0, 0), 1.0f);
    for (int c = 1; c < d; ++c) ASSERT_EQ(b.x(s, 0, c), 0.0f);
    int triggers = 0;
    for (int i = 1; i < 16; ++i) {
      const bool is_trigger = b.role(s, i) == position_role::kActiveRow;
      triggers += is_trigger;
      if (is_trigger) {
        EXPECT_EQ(b.triggers[s], i);
      }
      ASSERT_EQ(b.role(s, i), is_trigger ? position_role::kActiveRow : position_role::kNoOpRow);
      EXPECT_EQ(b.x(s, i, 0), 0.0f);
      EXPECT_EQ(b.x(s, i, 1), is_trigger ? 1.0f : 0.0f);
      EXPECT_EQ(b.x(s, i, d - 1), is_trigger ? 0.0f : 1.0f);
      for (int c = 2; c <= d - 2; ++c) {
        const float v = b.x(s, i, c);
        ASSERT_GE(v, -1.0f);
        ASSERT_LT(v, 1.0f);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    EXPECT_EQ(triggers, 1) << "sample " << s;
  }
  // 256 * 15 * 13 uniform draws span nearly all of (-1, 1).
  EXPECT_LT(lo, -0.99f);
  EXPECT_GT(hi, 0.99f);
}

TEST(TriggerConditionalTask, TrainTriggersCoverExactlyTheConfiguredRange) {
  for (const auto& [lo, hi] : {std::pair{2, -1}, std::pair{3, 5}, std::pair{1, 1}}) {
    TriggerTaskSettings c = config(8, 10);
    c.trigger_min = lo;
    c.trigger_max = hi;
    const TriggerConditionalTask task(c, false);
    const Batch b = sample(task, 2000, 5, Split::train);
    const std::set<int> seen(b.triggers.begin(), b.triggers.end());
    std::set<int> expected;
    for (int j = lo; j <= (hi == -1 ? 9 : hi); ++j) expected.insert(j);
    EXPECT_EQ(seen, expected) << "trigger_min " << lo << " trigger_max " << hi;
  }
}

TEST(TriggerConditionalTask, EvalUsesTheFixedTrigger) {
  TriggerTaskSettings c = config();
  c.eval_trigger = 11;
  const TriggerConditionalTask task(c, false);
  const Batch b = sample(task, 64, 3, Split::eval);
  for (int s = 0; s < 64; ++s) {
    EXPECT_EQ(b.triggers[s], 11);
    EXPECT_EQ(b.role(s, 11), position_role::kActiveRow);
  }
}

TEST(TriggerConditionalTask, MeanTargetIsThePrefixMeanAtTheTriggerAndZeroElsewhere) {
  const TriggerConditionalTask task(config(), /*residual_model=*/false);  // target auto -> mean
  const Batch b = sample(task, 64, 21, Split::train);
  for (int s = 0; s < 64; ++s) {
    const int j = b.triggers[s];
    for (int i = 0; i < 16; ++i) {
      for (int c = 0; c < 16; ++c) {
        if (i != j) {
          ASSERT_EQ(b.y(s, i, c), 0.0f);
          continue;
        }
        double mean = 0;
        for (int k = 1; k <= j; ++k) mean += b.x(s, k, c);
        mean /= j;
        ASSERT_NEAR(b.y(s, i, c), mean, 1e-6);
      }
    }
    // The flags are averaged too: one trigger among j tokens.
    EXPECT_FLOAT_EQ(b.y(s, j, 1), 1.0f / static_cast<float>(j));
    EXPECT_FLOAT_EQ(b.y(s, j, 15), static_cast<float>(j - 1) / static_cast<float>(j));
  }
}

TEST(TriggerConditionalTask, ResidualTargetAddsTheMeanToTheInput) {
  const TriggerConditionalTask residual(config(), /*residual_model=*/true);  // target auto -> residual
  const TriggerConditionalTask mean(config(), false);
  const Batch r = sample(residual, 32, 8, Split::train);
  const Batch m = sample(mean, 32, 8, Split::train);
  ASSERT_EQ(r.inputs, m.inputs);  // the target kind does not change the draws
  for (std::size_t k = 0; k < r.targets.size(); ++k) {
    ASSERT_FLOAT_EQ(r.targets[k], r.inputs[k] + m.targets[k]) << "entry " << k;
  }
}

TEST(TriggerConditionalTask, WithoutBosPositionZeroIsAnOrdinaryTokenInTheMean) {
  TriggerTaskSettings c = config();
  c.bos = false;
  c.trigger_min = 1;
  const TriggerConditionalTask task(c, /*residual_model=*/false);
  EXPECT_FALSE(task.has_bos());
  const Batch b = sample(task, 64, 33, Split::train);
  using namespace position_role;
  bool saw_content = false;
  for (int s = 0; s < 64; ++s) {
    const int j = b.triggers[s];
    ASSERT_GE(j, 1);
    // No position carries the BOS flag; position 0 is ordinary, with drawn content.
    for (int i = 0; i < 16; ++i) ASSERT_EQ(b.x(s, i, 0), 0.0f);
    EXPECT_EQ(b.x(s, 0, 15), 1.0f);
    EXPECT_EQ(b.x(s, 0, 1), 0.0f);
    for (int col = 2; col <= 14; ++col) {
      ASSERT_GE(b.x(s, 0, col), -1.0f);
      ASSERT_LT(b.x(s, 0, col), 1.0f);
      saw_content |= b.x(s, 0, col) != 0.0f;
    }
    // Position 0 is the sink-candidate key without a row flag; the other rows as with BOS.
    EXPECT_EQ(b.role(s, 0), kSinkKey);
    for (int i = 1; i < 16; ++i) EXPECT_EQ(b.role(s, i), i == j ? kActiveRow : kNoOpRow);
    for (int col = 0; col < 16; ++col) {
      double mean = 0;
      for (int k = 0; k <= j; ++k) mean += b.x(s, k, col);
      ASSERT_NEAR(b.y(s, j, col), mean / (j + 1), 1e-6);
    }
    EXPECT_FLOAT_EQ(b.y(s, j, 1), 1.0f / static_cast<float>(j + 1));
  }
  EXPECT_TRUE(saw_content);
}

TEST(TriggerConditionalTask, WithoutBosTheDrawsStartAtPositionZero) {
  TriggerTaskSettings c = config(6, 5);
  c.bos = false;
  c.trigger_min = 1;
  c.eval_trigger = 3;
  const TriggerConditionalTask task(c, false);
  const Batch b = sample(task, 3, 5, Split::train);
  Rng rng(5);
  for (int s = 0; s < 3; ++s) {
    rng.below(4);
    Rng stream(rng.next());
    for (int i = 0; i < 5; ++i)
      for (int col = 2; col <= 4; ++col) EXPECT_EQ(b.x(s, i, col), stream.uniform(-1.0f, 1.0f));
  }
}

TEST(TriggerConditionalTask, ExplicitTargetOverridesAuto) {
  TriggerTaskSettings c = config();
  c.target = TargetKind::mean;
  EXPECT_FALSE(TriggerConditionalTask(c, true).residual_target());
  c.target = TargetKind::residual;
  EXPECT_TRUE(TriggerConditionalTask(c, false).residual_target());
}

TEST(TriggerConditionalTask, DrawOrderIsTriggerSeedThenContentRowByRow) {
  TriggerTaskSettings c = config(6, 5);
  c.trigger_min = 1;
  c.eval_trigger = 3;
  const TriggerConditionalTask task(c, false);
  const Batch b = sample(task, 11, 99, Split::train);  // a full group of 8 streams and a partial one
  Rng rng(99);
  for (int s = 0; s < 11; ++s) {
    EXPECT_EQ(b.triggers[s], 1 + static_cast<int>(rng.below(4)));
    Rng stream(rng.next());
    for (int i = 1; i < 5; ++i) {
      for (int col = 2; col <= 4; ++col) EXPECT_EQ(b.x(s, i, col), stream.uniform(-1.0f, 1.0f));
    }
  }
}

TEST(TriggerConditionalTask, SameSeedSameBitsAndChunkingDoesNotMatter) {
  const TriggerConditionalTask task(config(), false);
  const Batch a = sample(task, 40, 1234, Split::train);
  const Batch b = sample(task, 40, 1234, Split::train);
  EXPECT_EQ(0, std::memcmp(a.inputs.data(), b.inputs.data(), a.inputs.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(a.targets.data(), b.targets.data(), a.targets.size() * sizeof(float)));
  EXPECT_EQ(a.triggers, b.triggers);
  EXPECT_NE(a.inputs, sample(task, 40, 1235, Split::train).inputs);

  Batch chunked(task, 40);
  Rng rng(1234);
  BatchView v = chunked.view();
  task.sample(15, rng, Split::train, v);
  const std::size_t done = 15 * 16 * 16;
  task.sample(25, rng, Split::train, {v.inputs + done, nullptr, v.targets + done, nullptr, v.roles + 15 * 16});
  chunked.find_triggers();
  EXPECT_EQ(chunked.inputs, a.inputs);
  EXPECT_EQ(chunked.targets, a.targets);
  EXPECT_EQ(chunked.triggers, a.triggers);
}

TEST(TriggerConditionalTask, SameBitsOnOneAndTwoThreads) {
  // 300 samples: more than one chunk of seeds, groups run in parallel on two threads.
  const TriggerConditionalTask task(config(), true);
#ifdef SINKLAB_HAVE_OPENMP
  const int threads = set_thread_count(1);
  const Batch one = sample(task, 300, 77, Split::train);
  set_thread_count(2);
  const Batch two = sample(task, 300, 77, Split::train);
  set_thread_count(threads);
  EXPECT_EQ(0, std::memcmp(one.inputs.data(), two.inputs.data(), one.inputs.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(one.targets.data(), two.targets.data(), one.targets.size() * sizeof(float)));
  EXPECT_EQ(one.triggers, two.triggers);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(TriggerConditionalTask, SamplingDoesNotAllocate) {
  const TriggerConditionalTask task(config(), true);
  Batch b(task, 128);
  Rng rng(1);
  // Once per process, at the first kernel call, the kernel level is chosen; under SINKLAB_MAX_ISA that
  // caps oneDNN, which allocates. It is not sampling's: choose it before counting.
  kernel_isa_level();
  const auto before = testing::allocation_count();
  task.sample(128, rng, Split::train, b.view());
  task.sample(128, rng, Split::eval, b.view());
  EXPECT_EQ(testing::allocation_count(), before);
}

TEST(TriggerConditionalTask, InconsistentConfigsThrowTaskError) {
  TriggerTaskSettings c = config();
  c.dim = 3;
  EXPECT_THROW(TriggerConditionalTask(c, false), TaskError);
  c = config();
  c.trigger_max = 16;
  EXPECT_THROW(TriggerConditionalTask(c, false), TaskError);
  c = config();
  c.trigger_min = 0;
  EXPECT_THROW(TriggerConditionalTask(c, false), TaskError);
  {
    const TriggerConditionalTask task(config(), false);
    Rng rng(1);
    EXPECT_THROW(task.sample(-1, rng, Split::train, {nullptr, nullptr, nullptr, nullptr, nullptr}), TaskError);
  }
  c = config();
  c.eval_trigger = 16;
  try {
    TriggerConditionalTask task(c, false);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_STREQ(e.what(), "eval_trigger must be in 1 .. seq_len - 1 = 15, got 16");
  }
}

}  // namespace
}  // namespace sinklab
