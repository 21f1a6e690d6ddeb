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
#include "tests/data/allocation_counter.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string write_corpus(const std::string& name, const std::string& text) {
  const fs::path path = testing::test_file(name);
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

// The window options (Gu et al.'s experiments) on a corpus whose every window tells its start: the
// letters a..z once, so letter l has id l - 'a' + 1 and a window of consecutive letters is consecutive ids.
// 26 bytes, val_fraction 0.25: the last round(6.5) = 7 bytes (t..z) are validation, a..s (19) training.
std::string alphabet() { return write_corpus("text_lm_alphabet.txt", "abcdefghijklmnopqrstuvwxyz"); }

int32_t id_of(char c) { return c - 'a' + 1; }

// Samples n windows of T and checks each against `expect(ids_of_the_window's_first_corpus_token, ...)`.
struct Windows {
  std::vector<int32_t> ids, targets;
  std::vector<uint8_t> roles;
};
Windows draw(const TextLmTask& task, int n, Split split, uint64_t seed) {
  BatchBuffers b(task.shape(), n);
  Rng rng(seed);
  task.sample(n, rng, split, b.view());
  return {b.input_ids, b.target_ids, b.roles};
}

// bos: false packs seq_len consecutive corpus tokens: position 0 is the first of them (and still the
// sink key), position i predicts i + 1, the last position has none; every start of the part is drawn.
TEST(TextLmWindows, WithoutBosAWindowIsSeqLenPackedTokens) {
  TextLmWindows packed;
  packed.bos = false;
  const TextLmTask task(alphabet(), TextTokenizer::character, 0, 0.25, 4, packed);
  ASSERT_EQ(task.train_tokens(), 19u);
  for (const Split split : {Split::train, Split::eval}) {
    const int32_t lo = id_of(split == Split::eval ? 't' : 'a'), hi = id_of(split == Split::eval ? 'z' : 's');
    const Windows w = draw(task, 400, split, 9);
    std::set<int32_t> firsts;
    for (int n = 0; n < 400; ++n) {
      const int32_t* ids = w.ids.data() + n * 4;
      const int32_t* y = w.targets.data() + n * 4;
      ASSERT_GE(ids[0], lo);
      ASSERT_LE(ids[0] + 3, hi) << "a window stays inside its part";
      for (int i = 0; i < 4; ++i) ASSERT_EQ(ids[i], ids[0] + i) << "consecutive corpus tokens, no BOS";
      for (int i = 0; i < 3; ++i) ASSERT_EQ(y[i], ids[i + 1]);
      ASSERT_EQ(y[3], -1);
      ASSERT_EQ(w.roles[static_cast<size_t>(n * 4)], position_role::kSinkKey);
      for (int i = 1; i < 4; ++i) ASSERT_EQ(w.roles[static_cast<size_t>(n * 4 + i)], 0);
      firsts.insert(ids[0]);
    }
    EXPECT_EQ(static_cast<int>(firsts.size()), hi - lo - 2) << "every start is drawn";
  }
  // A window of 7 packed tokens fits the validation part (7), one of 8 does not; with BOS 8 fits.
  packed.bos = false;
  EXPECT_NO_THROW(TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 7, packed));
  EXPECT_THROW(TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 8, packed), TaskError);
  EXPECT_NO_THROW(TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 8));
}

// Position P holds the fixed token in every window, training and evaluation; position P - 1 is scored
// on it; every other position and target is the corpus's.
TEST(TextLmWindows, AFixedTokenReplacesPositionPOfEveryWindow) {
  for (const bool bos : {true, false})
    for (const int P : {0, 1, 2, 4}) {
      if (bos && P == 0) continue;
      SCOPED_TRACE("bos " + std::to_string(bos) + ", P " + std::to_string(P));
      TextLmWindows fixed;
      fixed.bos = bos;
      fixed.fixed_token_position = P;
      fixed.fixed_token = "z";
      const TextLmTask task(alphabet(), TextTokenizer::character, 0, 0.25, 5, fixed);
      EXPECT_EQ(task.fixed_token_id(), id_of('z'));
      for (const Split split : {Split::train, Split::eval}) {
        const Windows w = draw(task, 200, split, 4);
        for (int n = 0; n < 200; ++n) {
          const int32_t* ids = w.ids.data() + n * 5;
          const int32_t* y = w.targets.data() + n * 5;
          // The first corpus token of the window, read where the fixed token is not.
          const int lead = bos ? 1 : 0;
          const int at = P == lead ? lead + 1 : lead;
          const int32_t first = ids[at] - (at - lead);
          std::vector<int32_t> want(5), want_y(5);
          if (bos) want[0] = 0;
          for (int i = lead; i < 5; ++i) want[static_cast<size_t>(i)] = first + (i - lead);
          want[static_cast<size_t>(P)] = id_of('z');
          for (int i = 0; i < 4; ++i) want_y[static_cast<size_t>(i)] = want[static_cast<size_t>(i + 1)];
          want_y[4] = -1;
          ASSERT_EQ(std::vector<int32_t>(ids, ids + 5), want) << "window " << n;
          ASSERT_EQ(std::vector<int32_t>(y, y + 5), want_y) << "window " << n;
          ASSERT_EQ(w.roles[static_cast<size_t>(n * 5)], position_role::kSinkKey);
        }
      }
    }
}

TEST(TextLmWindows, AFixedWordIsOneWordOfTheVocabulary) {
  const std::string path = write_corpus("text_lm_fixed_words.txt",
                                        "the cat sat . the dog sat . the cat ran . a dog ran . the end . the end .");
  TextLmWindows fixed;
  fixed.fixed_token_position = 1;
  fixed.fixed_token = "The";  // the word tokenizer lowercases, as it reads the corpus
  const TextLmTask task(path, TextTokenizer::word, 8, 0.2, 4, fixed);
  EXPECT_EQ(task.fixed_token_id(), task.encode("the")[0]);
  const Windows w = draw(task, 50, Split::train, 1);
  for (int n = 0; n < 50; ++n) {
    EXPECT_EQ(w.ids[static_cast<size_t>(n * 4 + 1)], task.fixed_token_id());
    EXPECT_EQ(w.targets[static_cast<size_t>(n * 4)], task.fixed_token_id());
  }
}

// train_tokens N: training windows come from the first N tokens only (every start there is drawn, none
// after); the evaluation windows are those of the whole task.
TEST(TextLmWindows, TrainTokensLimitsTrainingWindowsToThePartsFirstTokens) {
  TextLmWindows less;
  less.train_tokens = 6;
  const TextLmTask task(alphabet(), TextTokenizer::character, 0, 0.25, 4, less),
      whole(alphabet(), TextTokenizer::character, 0, 0.25, 4);
  EXPECT_EQ(task.sampled_train_tokens(), 6u);
  EXPECT_EQ(whole.sampled_train_tokens(), 19u);
  const Windows w = draw(task, 300, Split::train, 6);
  std::set<int32_t> firsts;
  for (int n = 0; n < 300; ++n) {
    const int32_t* ids = w.ids.data() + n * 4;
    ASSERT_EQ(ids[0], 0);
    ASSERT_LE(ids[3], id_of('f')) << "a window inside a..f, the first 6 tokens";
    firsts.insert(ids[1]);
  }
  EXPECT_EQ(firsts, (std::set<int32_t>{id_of('a'), id_of('b'), id_of('c'), id_of('d')}));
  EXPECT_EQ(draw(task, 100, Split::eval, 8).ids, draw(whole, 100, Split::eval, 8).ids)
      << "the evaluation set is unchanged";
  less.train_tokens = 19;  // the whole training part, spelled out
  EXPECT_EQ(draw(TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 4, less), 100, Split::train, 2).ids,
            draw(whole, 100, Split::train, 2).ids);
}

// Same options and seed, same windows; the options off are the plain task; sampling allocates nothing.
TEST(TextLmWindows, DeterministicAndAllocationFree) {
  TextLmWindows all;
  all.bos = false;
  all.fixed_token_position = 2;
  all.fixed_token = "q";
  all.train_tokens = 12;
  const TextLmTask a(alphabet(), TextTokenizer::character, 0, 0.25, 5, all),
      b(alphabet(), TextTokenizer::character, 0, 0.25, 5, all);
  const Windows wa = draw(a, 64, Split::train, 3), wb = draw(b, 64, Split::train, 3);
  EXPECT_EQ(wa.ids, wb.ids);
  EXPECT_EQ(wa.targets, wb.targets);
  EXPECT_NE(draw(a, 64, Split::train, 4).ids, wa.ids) << "another seed, other windows";
  BatchBuffers buffers(a.shape(), 64);
  Rng rng(1);
  a.sample(64, rng, Split::train, buffers.view());
  const auto before = testing::allocation_count();
  a.sample(64, rng, Split::train, buffers.view());
  a.sample(64, rng, Split::eval, buffers.view());
  EXPECT_EQ(testing::allocation_count(), before);
}

TEST(TextLmWindows, BadOptionsNameTheirKeys) {
  const auto first_key_of = [](const TextLmWindows& w, TextTokenizer tokenizer = TextTokenizer::character,
                               int seq_len = 5) -> std::string {
    try {
      const std::string path = tokenizer == TextTokenizer::character
                                   ? alphabet()
                                   : write_corpus("text_lm_bad_words.txt", "the cat sat . the dog sat . the end .");
      TextLmTask(path, tokenizer, 6, 0.25, seq_len, w);
    } catch (const TaskError& e) {
      EXPECT_FALSE(e.keys().empty()) << e.what();
      return e.keys().empty() ? "" : e.keys()[0];
    }
    ADD_FAILURE() << "no error";
    return "";
  };
  TextLmWindows w;
  w.train_tokens = 3;  // a window is 4 corpus tokens after BOS
  EXPECT_EQ(first_key_of(w), "task.train_tokens");
  w.train_tokens = 20;  // the training part holds 19
  EXPECT_EQ(first_key_of(w), "task.train_tokens");
  w = {};
  w.fixed_token_position = 0;  // BOS's place
  w.fixed_token = "z";
  EXPECT_EQ(first_key_of(w), "task.fixed_token_position");
  w.fixed_token_position = 5;  // past seq_len - 1
  EXPECT_EQ(first_key_of(w), "task.fixed_token_position");
  w.fixed_token_position = -2;
  EXPECT_EQ(first_key_of(w), "task.fixed_token_position");
  w.fixed_token_position = 1;
  w.fixed_token = "";
  EXPECT_EQ(first_key_of(w), "task.fixed_token");
  w.fixed_token = "zz";
  EXPECT_EQ(first_key_of(w), "task.fixed_token");
  w.fixed_token = "@";  // not in the corpus
  EXPECT_EQ(first_key_of(w), "task.fixed_token");
  w.fixed_token = "the cat";
  EXPECT_EQ(first_key_of(w, TextTokenizer::word, 3), "task.fixed_token");
  w.fixed_token = "zebra";
  EXPECT_EQ(first_key_of(w, TextTokenizer::word, 3), "task.fixed_token");
  w.fixed_token_position = -1;  // a token with no position
  w.fixed_token = "z";
  EXPECT_EQ(first_key_of(w), "task.fixed_token");

  w = {};
  w.fixed_token_position = 0;
  w.fixed_token = "@";
  try {
    TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 5, w);
    ADD_FAILURE() << "no error";
  } catch (const TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("BOS"), std::string::npos) << e.what();
  }
  w.bos = false;
  try {
    TextLmTask(alphabet(), TextTokenizer::character, 0, 0.25, 5, w);
    ADD_FAILURE() << "no error";
  } catch (const TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("'@'"), std::string::npos) << e.what();
  }
}

TEST(TextLmWindows, RegisteredOptionsReachTheTask) {
  TaskConfig c;
  c.name = "text_lm";
  c.seq_len = 5;
  c.options.set("corpus", alphabet());
  c.options.set("val_fraction", 0.25);
  c.options.set("bos", false);
  c.options.set("fixed_token_position", int64_t{0});
  c.options.set("fixed_token", std::string("k"));
  c.options.set("train_tokens", int64_t{10});
  const auto task = make_task(c, true);
  const auto& lm = dynamic_cast<const TextLmTask&>(*task);
  EXPECT_EQ(lm.fixed_token_id(), id_of('k'));
  EXPECT_EQ(lm.sampled_train_tokens(), 10u);
  const Windows w = draw(lm, 20, Split::train, 1);
  for (int n = 0; n < 20; ++n) {
    EXPECT_EQ(w.ids[static_cast<size_t>(n * 5)], id_of('k'));
    EXPECT_LE(w.ids[static_cast<size_t>(n * 5 + 4)], id_of('j'));
  }
}

}  // namespace
}  // namespace sinklab
