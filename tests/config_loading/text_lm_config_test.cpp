// A text_lm config: the corpus path is recorded absolute, model.vocab_size is checked against the
// corpus's character vocabulary (and the message says where the number comes from), and a missing
// corpus is an error at task.corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "config_loading/config_writer.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "tests/config_loading/config_test_util.h"

namespace sinklab {
namespace {

using testing::contains;

const std::string kFixture = std::string(SINKLAB_SOURCE_DIR) + "/tests/fixtures/corpus/kjv_excerpt.txt";

RunConfig load(const std::string& yaml) {
  return parse_run_config(yaml, "configs/x.yaml", {}, {normalizer_registry().names(), task_names()});
}

std::string text_lm_yaml(int model_vocab, const std::string& task_extra, const std::string& corpus = kFixture) {
  return "model: {d_model: 16, input: tokens, vocab_size: " + std::to_string(model_vocab) +
         ", output_head: true, positional: learned, residual: true}\n"
         "task: {name: text_lm, seq_len: 16, eval_samples: 8, corpus: " + corpus + task_extra + "}\n"
         "analysis: {eval_attention_samples: 8}\n";
}

ConfigError load_error(const std::string& yaml) {
  try {
    load(yaml);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << yaml;
  return ConfigError("", 0, "", "");
}

TEST(TextLmConfig, LoadsWithTheCorpusVocabularyAndRecordsTheCorpusAbsolute) {
  const RunConfig c = load(text_lm_yaml(64, ""));  // the excerpt has the KJV's 63 distinct bytes
  EXPECT_EQ(c.task.options.get<std::string>("corpus"), kFixture);
  EXPECT_EQ(c.task.options.get<std::string>("tokenizer"), "char");
  EXPECT_NE(to_yaml(c).find("corpus: " + kFixture), std::string::npos) << to_yaml(c);
}

TEST(TextLmConfig, CharVocabularyMismatchSaysTheNumberComesFromTheCorpus) {
  const ConfigError e = load_error(text_lm_yaml(32, ""));
  EXPECT_EQ(e.key(), "model.vocab_size");
  EXPECT_TRUE(contains(e.what(),
                       "model.vocab_size must equal 64 (task.corpus: the corpus has 63 distinct bytes + BOS), "
                       "got 32"))
      << e.what();
}

TEST(TextLmConfig, WordVocabularyIsTaskVocabSize) {
  EXPECT_NO_THROW(load(text_lm_yaml(100, ", tokenizer: word, vocab_size: 100")));
  const ConfigError e = load_error(text_lm_yaml(64, ", tokenizer: word, vocab_size: 100"));
  EXPECT_TRUE(contains(e.what(), "model.vocab_size must equal task.vocab_size (100), got 64")) << e.what();
}

TEST(TextLmConfig, AMissingCorpusIsAnErrorAtTaskCorpus) {
  const ConfigError e = load_error(text_lm_yaml(64, "", "/nonexistent/corpus.txt"));
  EXPECT_EQ(e.key(), "task.corpus");
  EXPECT_TRUE(contains(e.what(), "/nonexistent/corpus.txt: not found")) << e.what();
  EXPECT_FALSE(contains(e.what(), "task.corpus: task.corpus:")) << "the key is named twice: " << e.what();
}

// The window options (data/text_lm_task.h): a bad value is one error at its key, with the task's reason.
TEST(TextLmConfig, WindowOptionErrorsAreAtTheirKeys) {
  const struct {
    std::string extra, key, says;
  } cases[] = {
      {", fixed_token_position: 0, fixed_token: a", "task.fixed_token_position", "position 0 is BOS's place"},
      {", fixed_token_position: 16, fixed_token: a", "task.fixed_token_position", "1 .. 15 (seq_len - 1), got 16"},
      {", fixed_token_position: -2", "task.fixed_token_position", "must be >= -1"},
      {", fixed_token_position: 3, fixed_token: '@'", "task.fixed_token", "'@' is not in the vocabulary"},
      {", fixed_token_position: 3", "task.fixed_token", "is empty"},
      {", fixed_token: a", "task.fixed_token", "task.fixed_token_position is -1 (off)"},
      {", train_tokens: 14", "task.train_tokens", "fewer than one window of seq_len - 1 = 15"},
      {", train_tokens: 100000000", "task.train_tokens", "is more than the training part"},
      {", bos: maybe", "task.bos", "maybe"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.extra);
    const ConfigError e = load_error(text_lm_yaml(64, c.extra));
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_TRUE(contains(e.what(), c.says)) << e.what();
  }
}

// A resume compares the config hash: each window option is in the resolved config, reads back to the
// same value (a fixed token that YAML would misread included), and changes the hash.
TEST(TextLmConfig, WindowOptionsAreInTheResolvedConfigAndItsHash) {
  const RunConfig plain = load(text_lm_yaml(64, ""));
  EXPECT_TRUE(plain.task.options.get<bool>("bos"));
  EXPECT_EQ(plain.task.options.get<int64_t>("fixed_token_position"), -1);
  EXPECT_EQ(plain.task.options.get<std::string>("fixed_token"), "");
  EXPECT_EQ(plain.task.options.get<int64_t>("train_tokens"), 0);
  std::set<uint64_t> hashes{config_hash(plain)};
  for (const std::string extra :
       {", bos: false", ", fixed_token_position: 2, fixed_token: e", ", fixed_token_position: 2, fixed_token: ':'",
        ", fixed_token_position: 2, fixed_token: ' '", ", train_tokens: 500", ", train_tokens: 501"}) {
    SCOPED_TRACE(extra);
    const RunConfig c = load(text_lm_yaml(64, extra));
    EXPECT_TRUE(hashes.insert(config_hash(c)).second) << "the option must change the hash";
    const RunConfig back =
        parse_run_config(to_yaml(c), "resolved.yaml", {}, {normalizer_registry().names(), task_names()});
    EXPECT_EQ(back, c) << to_yaml(c);
  }
}

}  // namespace
}  // namespace sinklab
