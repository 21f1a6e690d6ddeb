#pragma once
// The word tokenizer of the text_lm task: the text is lowercased (ASCII letters) and cut into tokens
// that are runs of letters a-z or single bytes that are neither a letter nor white space (punctuation,
// digits, any non-ASCII byte), the regex [a-z]+|[^a-z\s]; white space only separates tokens. The
// vocabulary is BOS (id 0), <unk> (id 1), then the most frequent tokens of a text (ties: token text
// ascending); any other token reads as <unk>.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sinklab {

// The tokens of a text, as byte ranges of its lowercased copy.
class WordTokens {
 public:
  explicit WordTokens(std::string_view text);

  std::size_t size() const { return tokens_.size(); }
  std::string_view token(std::size_t i) const {
    return std::string_view(lowered_).substr(tokens_[i].begin, tokens_[i].length);
  }
  // Where token i starts in the text (for cutting the text at a byte position on a token boundary).
  std::size_t begin(std::size_t i) const { return tokens_[i].begin; }

 private:
  struct Range {
    std::size_t begin;
    std::size_t length;
  };
  std::string lowered_;
  std::vector<Range> tokens_;
};

class WordVocabulary {
 public:
  static constexpr int32_t kBos = 0;
  static constexpr int32_t kUnknown = 1;

  // BOS, <unk>, then the vocab_size - 2 most frequent of tokens 0 .. count - 1 (ties: token text
  // ascending). Throws TaskError naming task.vocab_size when vocab_size < 3, or when those tokens hold
  // fewer than vocab_size - 2 distinct ones (a word would have no token to stand for).
  WordVocabulary(const WordTokens& tokens, std::size_t count, int vocab_size);
  // The vocabulary whose words by id are `words` (what words() returned, e.g. read back from the token
  // cache, data/token_cache.h); nullopt when it cannot be one: fewer than 3 words, BOS ("") and <unk> not
  // first, a later word that is not exactly one token of the tokenizer, or a word twice.
  static std::optional<WordVocabulary> from_words(std::vector<std::string> words);

  int size() const { return static_cast<int>(words_.size()); }  // BOS and <unk> included
  int32_t id_of(std::string_view token) const;                   // kUnknown when not in the vocabulary
  const std::string& word_of(int32_t id) const { return words_[static_cast<std::size_t>(id)]; }  // "" for BOS
  const std::vector<std::string>& words() const { return words_; }  // by id, BOS ("") and "<unk>" first
  // The tokens of `text` as ids; a token outside the vocabulary is <unk>.
  std::vector<int32_t> encode(std::string_view text) const;
  // The ids as readable text: tokens separated by one space, except none before punctuation and none
  // after '(' or an apostrophe (the text's own white space is not kept). BOS is skipped.
  std::string decode(const int32_t* ids, std::size_t count) const;

 private:
  WordVocabulary() = default;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> words_;  // by id
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace sinklab
