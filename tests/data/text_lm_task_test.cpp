// The text_lm task: windows are BOS plus consecutive corpus tokens from the right part, every start is
// drawn, targets are the next tokens, the split is by position (word: on a token boundary), the word
// vocabulary comes from the training part, the encoding is shared, and bad settings name their keys.
#include "data/text_lm_task.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/observe/position_roles.h"
#include "data/task_registry.h"
#include "data/word_vocabulary.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string write_corpus(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// 100 pseudo-random lowercase letters then a newline: every 7-byte window occurs once, so a window's
// text tells its start.
std::string random_letters() {
  Rng rng(5);
  std::string text;
  for (int i = 0; i < 100; ++i) text += static_cast<char>('a' + rng.below(26));
  return text + "\n";
}

TEST(TextLmTask, CharWindowsAreBosThenConsecutiveTokensOfTheirPart) {
  const std::string text = random_letters();
  const TextLmTask task(write_corpus("text_lm_letters.txt", text), TextTokenizer::character, 0, 0.2, 8);
  const TaskShape s = task.shape();
  EXPECT_EQ(s.input, TaskInput::tokens);
  EXPECT_EQ(s.loss, TaskLoss::cross_entropy);
  EXPECT_EQ(s.input_dim, static_cast<int>(std::set<char>(text.begin(), text.end()).size()) + 1);
  EXPECT_EQ(s.output_dim, s.input_dim);
  EXPECT_EQ(s.width_key, "task.corpus");
  EXPECT_EQ(s.width_text, "the corpus has " + std::to_string(s.input_dim - 1) + " distinct bytes + BOS");
  ASSERT_EQ(task.train_tokens(), 81u);  // 101 bytes, the last round(0.2 * 101) = 20 are validation
  ASSERT_EQ(task.validation_tokens(), 20u);
  const std::size_t cut = 81;

  for (const Split split : {Split::train, Split::eval}) {
    const bool eval = split == Split::eval;
    const std::size_t first = eval ? cut : 0, end = eval ? text.size() : cut;
    std::set<std::size_t> starts;
    BatchBuffers b(s, 3000);
    Rng rng(eval ? 2 : 1);
    task.sample(3000, rng, split, b.view());
    using namespace position_role;
    for (int n = 0; n < 3000; ++n) {
      const int32_t* ids = b.input_ids.data() + n * 8;
      const int32_t* y = b.target_ids.data() + n * 8;
      const uint8_t* roles = b.roles.data() + n * 8;
      ASSERT_EQ(ids[0], 0);
      ASSERT_EQ(roles[0], kSinkKey);
      for (int i = 1; i < 8; ++i) ASSERT_EQ(roles[i], 0) << "a language model has no no-op or active rows";
      for (int i = 0; i < 7; ++i) ASSERT_EQ(y[i], ids[i + 1]);
      ASSERT_EQ(y[7], -1);
      const std::string window = task.decode({ids, 8});
      ASSERT_EQ(window.size(), 7u);
      const std::size_t at = text.find(window);
      ASSERT_NE(at, std::string::npos);
      ASSERT_GE(at, first) << window;
      ASSERT_LE(at + 7, end) << window;
      starts.insert(at);
    }
    EXPECT_EQ(starts.size(), end - first - 6) << "every start inside the part is drawn";
  }
}

TEST(TextLmTask, WordSplitIsOnATokenBoundaryAndTheVocabularyComesFromTheTrainingPart) {
  const std::string text = "alpha beta alpha gamma beta alpha delta alpha beta gamma alpha omega omega omega";
  ASSERT_EQ(text.size(), 80u);
  const TextLmTask task(write_corpus("text_lm_words.txt", text), TextTokenizer::word, 6, 0.25, 3);
  // round(0.25 * 80) = 20 validation bytes: the cut (byte 60) falls inside the last "alpha" (bytes
  // 57..61), which starts in the training bytes and stays there; the omegas are the validation part.
  EXPECT_EQ(task.train_tokens(), 11u);
  EXPECT_EQ(task.validation_tokens(), 3u);
  EXPECT_EQ(task.shape().input_dim, 6);
  EXPECT_EQ(task.shape().width_key, "task.vocab_size");
  // alpha 5, beta 3, gamma 2, delta 1: omega (validation only) is <unk>.
  const std::vector<int32_t> ids(task.corpus_ids().begin(), task.corpus_ids().end());
  EXPECT_EQ(ids, (std::vector<int32_t>{2, 3, 2, 4, 3, 2, 5, 2, 3, 4, 2, 1, 1, 1}));
  EXPECT_EQ(task.decode(ids), "alpha beta alpha gamma beta alpha delta alpha beta gamma alpha <unk> <unk> <unk>");
  EXPECT_EQ(task.encode("Gamma, OMEGA"), (std::vector<int32_t>{4, 1, 1}));  // unknown words read as <unk>

  BatchBuffers b(task.shape(), 50);
  Rng rng(3);
  task.sample(50, rng, Split::eval, b.view());
  for (int n = 0; n < 50; ++n) {
    EXPECT_EQ(b.input_ids[n * 3], 0);
    EXPECT_EQ(b.input_ids[n * 3 + 1], 1);  // validation windows: two of the three omegas
    EXPECT_EQ(b.target_ids[n * 3 + 2], -1);
  }
}

TEST(TextLmTask, EncodingIsSharedUntilTheFileChanges) {
  const std::string path = write_corpus("text_lm_shared.txt", random_letters());
  const TextLmTask a(path, TextTokenizer::character, 0, 0.2, 8), b(path, TextTokenizer::character, 0, 0.2, 16);
  EXPECT_EQ(a.corpus_ids().data(), b.corpus_ids().data());
  const TextLmTask other_split(path, TextTokenizer::character, 0, 0.3, 8);
  EXPECT_EQ(other_split.train_tokens(), 71u);

  std::ofstream(path, std::ios::binary) << "zyxwvutsrqponmlkjihgfedcba\nzyxwvutsrqponmlkjihgfedcba\n";
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(2));
  const TextLmTask changed(path, TextTokenizer::character, 0, 0.2, 8);
  EXPECT_EQ(changed.corpus_ids().size(), 54u);
  EXPECT_EQ(changed.decode(changed.corpus_ids().subspan(0, 3)), "zyx");
  EXPECT_EQ(a.corpus_ids().size(), 101u);  // a task built before keeps its text
}

TEST(TextLmTask, CharPromptsNameAnUnknownCharacter) {
  const TextLmTask task(write_corpus("text_lm_prompt.txt", random_letters()), TextTokenizer::character, 0, 0.2, 8);
  try {
    task.encode("ab@");
    FAIL() << "no error";
  } catch (const TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("no '@'"), std::string::npos) << e.what();
  }
}

TEST(TextLmTask, BadSettingsNameTheirKeys) {
  const auto keys_of = [](auto make) -> std::vector<std::string> {
    try {
      make();
    } catch (const TaskError& e) {
      return e.keys();
    }
    ADD_FAILURE() << "no error";
    return {};
  };
  const std::string letters = write_corpus("text_lm_short.txt", random_letters());
  const std::string missing = (fs::path(::testing::TempDir()) / "text_lm_no_such_corpus.txt").string();
  EXPECT_EQ(keys_of([&] { TextLmTask(missing, TextTokenizer::character, 0, 0.05, 8); }),
            std::vector<std::string>{"task.corpus"});
  // The validation part (5 bytes) is shorter than a window of 7.
  EXPECT_EQ(keys_of([&] { TextLmTask(letters, TextTokenizer::character, 0, 0.05, 8); }),
            (std::vector<std::string>{"task.seq_len", "task.val_fraction", "task.corpus"}));
  // One word in the whole text: the training part cannot fill 3 words.
  EXPECT_EQ(keys_of([&] { TextLmTask(letters, TextTokenizer::word, 5, 0.2, 2); })[0], "task.vocab_size");
}

TEST(TextLmTask, RegisteredWithItsOptions) {
  TaskConfig c;
  c.name = "text_lm";
  c.seq_len = 8;
  c.options.set("corpus", write_corpus("text_lm_registered.txt", "the cat. the dog. a cat, a dog; the end.\n"));
  c.options.set("tokenizer", std::string("word"));
  c.options.set("vocab_size", int64_t{7});
  c.options.set("val_fraction", 0.5);
  const auto task = make_task(c, true);
  ASSERT_EQ(task->name(), "text_lm");
  const auto& lm = dynamic_cast<const TextLmTask&>(*task);
  EXPECT_EQ(lm.tokenizer(), TextTokenizer::word);
  EXPECT_EQ(lm.vocab_size(), 7);
  EXPECT_EQ(task->shape().seq_len, 8);
}

}  // namespace
}  // namespace sinklab
