// The bigram_backcopy task: BOS first, position 1 never a trigger, the back-copy rule at every trigger,
// observed bigrams elsewhere, targets and roles as documented, the no-op-row entropy baseline (by hand
// and against the sampled sequences), and errors that name their keys.
#include "data/bigram_backcopy_task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/observe/position_roles.h"
#include "data/task_registry.h"

namespace sinklab {
namespace {

std::shared_ptr<const TextCorpus> corpus_of(const std::string& text) {
  auto c = std::make_shared<TextCorpus>();
  c->path = "(test)";
  c->text = text;
  return c;
}

std::shared_ptr<const TextCorpus> fixture() {
  return load_text_corpus(SINKLAB_SOURCE_DIR "/tests/fixtures/corpus/kjv_excerpt.txt", "task.corpus");
}

TEST(BigramBackcopyTask, SequencesFollowTheChainAndTheBackCopyRule) {
  const BigramBackcopyTask task(40, fixture(), 3);
  const BigramChain& chain = task.chain();
  const TaskShape s = task.shape();
  EXPECT_EQ(s.input_dim, chain.vocab_size());
  EXPECT_EQ(s.output_dim, chain.vocab_size());
  EXPECT_EQ(s.width_key, "task.corpus");
  EXPECT_EQ(s.width_text, "the corpus has " + std::to_string(chain.vocab_size() - 1) + " distinct bytes + BOS");
  constexpr int N = 300, T = 40;
  BatchBuffers buf(s, N);
  Rng rng(5);
  task.sample(N, rng, Split::train, buf.view());
  using namespace position_role;
  int copies = 0, bigrams = 0;
  for (int n = 0; n < N; ++n) {
    const int32_t* x = buf.input_ids.data() + n * T;
    const int32_t* y = buf.target_ids.data() + n * T;
    const uint8_t* roles = buf.roles.data() + n * T;
    ASSERT_EQ(x[0], 0);
    ASSERT_EQ(roles[0], kSinkKey);
    ASSERT_GE(x[1], 1);
    ASSERT_FALSE(chain.is_trigger(x[1]));
    ASSERT_EQ(y[T - 1], -1);
    for (int t = 0; t + 1 < T; ++t) ASSERT_EQ(y[t], x[t + 1]);
    for (int t = 1; t < T; ++t) {
      ASSERT_GE(x[t], 1);
      ASSERT_EQ(roles[t], chain.is_trigger(x[t]) ? kActiveRow : kNoOpRow) << "row " << t;
      if (t + 1 == T) continue;
      if (chain.is_trigger(x[t])) {
        ASSERT_EQ(x[t + 1], x[t - 1]) << "back-copy at row " << t;
        ++copies;
      } else {
        ASSERT_TRUE(chain.bigram_observed(x[t], x[t + 1]) || chain.row_empty(x[t])) << "unobserved bigram at row " << t;
        ++bigrams;
      }
    }
  }
  EXPECT_GT(copies, N);  // triggers are the most frequent bytes: several per sequence
  EXPECT_GT(bigrams, copies);
}

TEST(BigramBackcopyTask, MarkovEntropyByHand) {
  // "aaabbc" with one trigger (a): see tests/data/bigram_chain_test.cpp for the tables.
  const double h_b = std::log(2.0);
  const double h_c = -(0.5 * std::log(0.5) + std::log(1.0 / 3) / 3 + std::log(1.0 / 6) / 6);
  // seq_len 3: only row 1 is a scored row; x_1 is b (2/3) or c (1/3).
  EXPECT_NEAR(BigramBackcopyTask(3, corpus_of("aaabbc"), 1).markov_entropy(), 2.0 / 3 * h_b + 1.0 / 3 * h_c, 1e-12);
  // seq_len 4 adds row 2: x_2 is a (1/6, a trigger: not a no-op row), b (4/9) or c (7/18).
  const double row1 = 2.0 / 3 * h_b + 1.0 / 3 * h_c, row2 = 4.0 / 9 * h_b + 7.0 / 18 * h_c;
  const BigramBackcopyTask four(4, corpus_of("aaabbc"), 1);
  EXPECT_NEAR(four.markov_entropy(), (row1 + row2) / (1.0 + 5.0 / 6), 1e-12);
  ASSERT_EQ(four.baselines().size(), 1u);
  EXPECT_EQ(four.baselines()[0].first, "markov_entropy");
  EXPECT_EQ(four.baselines()[0].second, four.markov_entropy());
}

TEST(BigramBackcopyTask, MarkovEntropyIsTheExactChainsLossOnSampledNoOpRows) {
  const BigramBackcopyTask task(24, fixture(), 3);
  constexpr int N = 4000, T = 24;
  BatchBuffers buf(task.shape(), N);
  Rng rng(9);
  task.sample(N, rng, Split::eval, buf.view());
  double sum = 0, sq = 0;
  int64_t rows = 0;
  for (int n = 0; n < N; ++n)
    for (int t = 1; t + 1 < T; ++t) {
      const size_t at = static_cast<size_t>(n * T + t);
      if (!(buf.roles[at] & position_role::kNoOpRow)) continue;
      const double l = -std::log(task.chain().conditional(buf.input_ids[at], buf.target_ids[at]));
      sum += l;
      sq += l * l;
      ++rows;
    }
  const double mean = sum / rows, sd = std::sqrt(sq / rows - mean * mean);
  // Rows of one sequence are correlated: allow 5 standard errors of independent rows, times 3.
  EXPECT_NEAR(mean, task.markov_entropy(), 15 * sd / std::sqrt(static_cast<double>(rows)));
  EXPECT_GT(task.markov_entropy(), 0.5);
}

TEST(BigramBackcopyTask, ErrorsNameTheirKeys) {
  try {
    BigramBackcopyTask(2, corpus_of("abcabc"), 1);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.seq_len"});
  }
  try {
    BigramBackcopyTask(10, corpus_of("abab"), 3);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys().front(), "task.triggers");
  }
  TaskConfig c;
  c.name = "bigram_backcopy";
  c.options.set("corpus", (std::filesystem::path(::testing::TempDir()) / "no_such_corpus.txt").string());
  try {
    make_task(c, false);
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_EQ(e.keys(), std::vector<std::string>{"task.corpus"});
    EXPECT_NE(std::string(e.what()).find("not found"), std::string::npos) << e.what();
  }
}

TEST(BigramBackcopyTask, TheRegistrationReadsTheCorpusOption) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "bb_corpus.txt";
  std::ofstream(path, std::ios::binary) << "the cat sat on the mat\n";
  TaskConfig c;
  c.name = "bigram_backcopy";
  c.seq_len = 12;
  c.options.set("corpus", path.string());
  c.options.set("triggers", int64_t{2});
  const auto task = make_task(c, false);
  EXPECT_EQ(task->shape().input_dim, 12);  // "\n", " ", a c e h m n o s t + BOS
  const auto& bb = dynamic_cast<const BigramBackcopyTask&>(*task);
  // Counts: ' ' 5, t 5, a 3: ' ' (0x20) < 't', so the triggers are ' ' and 't'.
  EXPECT_EQ(bb.chain().triggers(),
            (std::vector<int32_t>{bb.chain().vocabulary().id_of(' '), bb.chain().vocabulary().id_of('t')}));
}

}  // namespace
}  // namespace sinklab
