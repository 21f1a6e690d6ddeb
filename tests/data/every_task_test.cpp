// Generator invariants checked on every registered task (a new task gets them without new test code):
// its shape is usable, samples are reproducible and do not depend on chunking, every position carries
// valid role flags, token ids and targets are in range, and sampling allocates nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/observe/position_roles.h"
#include "data/task_registry.h"
#include "tests/data/allocation_counter.h"

namespace sinklab {
namespace {

// A task that reads a file (an OptionKind::path option, such as task.corpus) reads the committed
// fixture text: tests must not depend on data/corpora/, which scripts/get_corpus.sh writes.
const char* const kFixtureCorpus = SINKLAB_SOURCE_DIR "/tests/fixtures/corpus/kjv_excerpt.txt";

class EveryTask : public ::testing::TestWithParam<std::string> {
 protected:
  // Defaults, except that a task reading a text file reads the small fixture corpus (the tests must not
  // need the corpus scripts/get_corpus.sh installs).
  std::unique_ptr<Task> task() const {
    TaskConfig c;
    c.name = GetParam();
    for (const OptionSpec& o : find_task(c.name)->options)
      if (o.kind == OptionKind::path) c.options.set(o.key, std::string(kFixtureCorpus));
    return make_task(c, false);
  }
};

BatchBuffers draw(const Task& task, int batch, uint64_t seed) {
  BatchBuffers b(task.shape(), batch);
  Rng rng(seed);
  task.sample(batch, rng, Split::train, b.view());
  return b;
}

TEST_P(EveryTask, ShapeIsUsable) {
  const auto t = task();
  EXPECT_EQ(t->name(), GetParam());
  const TaskShape s = t->shape();
  EXPECT_GE(s.seq_len, 2);
  EXPECT_GE(s.input_dim, 1);
  EXPECT_GE(s.output_dim, 1);
  EXPECT_TRUE(s.width_key.starts_with("task.")) << s.width_key;
}

TEST_P(EveryTask, SamplesAreReproducibleAndChunkingDoesNotMatter) {
  const auto t = task();
  const BatchBuffers a = draw(*t, 20, 3), b = draw(*t, 20, 3), other = draw(*t, 20, 4);
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.input_ids, b.input_ids);
  EXPECT_EQ(a.targets, b.targets);
  EXPECT_EQ(a.target_ids, b.target_ids);
  EXPECT_EQ(a.roles, b.roles);
  EXPECT_TRUE(a.inputs != other.inputs || a.input_ids != other.input_ids) << "the seed changes nothing";

  BatchBuffers chunked(t->shape(), 20);
  Rng rng(3);
  t->sample(7, rng, Split::train, chunked.view());
  const ConstBatchView rest = chunked.view(7, 13);
  t->sample(13, rng, Split::train,
            {const_cast<float*>(rest.inputs), const_cast<int32_t*>(rest.input_ids), const_cast<float*>(rest.targets),
             const_cast<int32_t*>(rest.target_ids), const_cast<uint8_t*>(rest.roles)});
  EXPECT_EQ(chunked.inputs, a.inputs);
  EXPECT_EQ(chunked.input_ids, a.input_ids);
  EXPECT_EQ(chunked.targets, a.targets);
  EXPECT_EQ(chunked.target_ids, a.target_ids);
  EXPECT_EQ(chunked.roles, a.roles);
}

TEST_P(EveryTask, RolesIdsAndTargetsAreValid) {
  const auto t = task();
  const TaskShape s = t->shape();
  const BatchBuffers b = draw(*t, 64, 11);
  using namespace position_role;
  int sink_keys = 0, scored = 0;
  for (std::size_t p = 0; p < b.roles.size(); ++p) {
    const uint8_t r = b.roles[p];
    ASSERT_EQ(r & ~(kSinkKey | kNoOpRow | kActiveRow), 0) << "unknown role bits at position " << p;
    ASSERT_FALSE((r & kNoOpRow) && (r & kActiveRow)) << "a row is both no-op and active at position " << p;
    sink_keys += (r & kSinkKey) != 0;
  }
  EXPECT_GT(sink_keys, 0) << "no sink-candidate key (BOS) in 64 samples";
  if (s.input == TaskInput::tokens) {
    for (const int32_t id : b.input_ids) ASSERT_TRUE(id >= 0 && id < s.input_dim) << id;
  } else {
    for (const float v : b.inputs) ASSERT_TRUE(std::isfinite(v));
  }
  if (s.loss == TaskLoss::cross_entropy) {
    for (const int32_t id : b.target_ids) {
      ASSERT_TRUE(id >= -1 && id < s.output_dim) << id;
      scored += id >= 0;
    }
    EXPECT_GT(scored, 0) << "nothing to learn";
  } else {
    for (const float v : b.targets) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST_P(EveryTask, SamplingDoesNotAllocate) {
  const auto t = task();
  BatchBuffers b(t->shape(), 64);
  Rng rng(1);
  t->sample(64, rng, Split::train, b.view());  // warm-up
  const auto before = testing::allocation_count();
  t->sample(64, rng, Split::train, b.view());
  t->sample(64, rng, Split::eval, b.view());
  EXPECT_EQ(testing::allocation_count(), before);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryTask, ::testing::ValuesIn(task_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace sinklab
