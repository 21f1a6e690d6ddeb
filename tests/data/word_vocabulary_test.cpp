// The word tokenizer: lowercased runs of letters or single non-space bytes, a vocabulary of BOS, <unk>
// and the most frequent tokens (ties by text), unknown words as <unk>, a readable decoding, and a vocabulary
// rebuilt from its words.
#include "data/word_vocabulary.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "data/task.h"

namespace sinklab {
namespace {

std::vector<std::string> tokens_of(std::string_view text) {
  const WordTokens t(text);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < t.size(); ++i) out.emplace_back(t.token(i));
  return out;
}

TEST(WordTokens, LowercaseLetterRunsOrSingleNonSpaceBytes) {
  EXPECT_EQ(tokens_of("In the LORD's  house,\n(selah)\t3:16 caf\xc3\xa9!"),
            (std::vector<std::string>{"in", "the", "lord", "'", "s", "house", ",", "(", "selah", ")", "3", ":", "1",
                                      "6", "caf", "\xc3", "\xa9", "!"}));
  EXPECT_TRUE(tokens_of(" \t\r\n\v\f ").empty());
  const WordTokens t("ab  c");
  EXPECT_EQ(t.begin(0), 0u);
  EXPECT_EQ(t.begin(1), 4u);
}

TEST(WordVocabulary, BosUnknownThenMostFrequentWithTiesByText) {
  // Counts in the first 9 tokens: the 3, b 2, a 2, c 1, "." 1; the last tokens are outside the count.
  const WordTokens t("the b a The a b the c . zzz zzz zzz zzz");
  const WordVocabulary v(t, 9, 5);
  ASSERT_EQ(v.size(), 5);
  EXPECT_EQ(v.word_of(WordVocabulary::kUnknown), "<unk>");
  EXPECT_EQ(v.word_of(2), "the");
  EXPECT_EQ(v.word_of(3), "a");  // a and b tie at 2: a first
  EXPECT_EQ(v.word_of(4), "b");
  EXPECT_EQ(v.id_of("the"), 2);
  EXPECT_EQ(v.id_of("c"), WordVocabulary::kUnknown);
  EXPECT_EQ(v.id_of("zzz"), WordVocabulary::kUnknown);  // frequent, but only after the counted tokens
  EXPECT_EQ(v.encode("The B, zebra"), (std::vector<int32_t>{2, 4, 1, 1}));
}

TEST(WordVocabulary, DecodesReadably) {
  const WordTokens t("and god said , let there be light : and there was light . the lord ' s ( selah )");
  const WordVocabulary v(t, t.size(), 20);  // all 18 distinct tokens
  const std::vector<int32_t> ids = v.encode("And God said, Let there be (light): the LORD's light. Foo");
  EXPECT_EQ(v.decode(ids.data(), ids.size()), "and god said, let there be (light): the lord's light. <unk>");
  const int32_t with_bos[] = {WordVocabulary::kBos, v.id_of("light")};
  EXPECT_EQ(v.decode(with_bos, 2), "light");
}

TEST(WordVocabulary, TooSmallOrTooLargeNamesVocabSize) {
  const WordTokens t("a b c");
  for (const int size : {2, 6}) {
    try {
      WordVocabulary(t, t.size(), size);
      ADD_FAILURE() << "no error for vocab_size " << size;
    } catch (const TaskError& e) {
      ASSERT_FALSE(e.keys().empty());
      EXPECT_EQ(e.keys()[0], "task.vocab_size");
      EXPECT_NE(std::string(e.what()).find(size == 2 ? ">= 3" : "only 3 distinct tokens; use vocab_size <= 5"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(WordVocabulary(t, t.size(), 5).size(), 5);
}

// The token cache (data/token_cache.h) rebuilds a vocabulary from its words by id: the same ids, and
// nothing that no tokenization could have given.
TEST(WordVocabulary, FromItsWordsIsTheSameVocabularyAndOnlyAVocabulary) {
  const WordTokens t("the b a The a b the c . zzz");
  const WordVocabulary v(t, t.size(), 6);
  const std::optional<WordVocabulary> again = WordVocabulary::from_words(v.words());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->words(), v.words());
  for (const char* word : {"the", "a", "b", "zzz", "c", "."}) EXPECT_EQ(again->id_of(word), v.id_of(word)) << word;
  using Words = std::vector<std::string>;
  for (const Words& bad : {Words{"", "<unk>"}, Words{"x", "<unk>", "a"}, Words{"", "unk", "a"},
                           Words{"", "<unk>", "a", "b", "a"}, Words{"", "<unk>", "The"}, Words{"", "<unk>", "a b"},
                           Words{"", "<unk>", "ab."}, Words{"", "<unk>", ""}})
    EXPECT_FALSE(WordVocabulary::from_words(bad)) << ::testing::PrintToString(bad);
}

}  // namespace
}  // namespace sinklab
