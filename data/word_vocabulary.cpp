#include "data/word_vocabulary.h"

#include <algorithm>
#include <utility>

#include "data/task.h"

namespace sinklab {
namespace {

bool is_letter(unsigned char c) { return c >= 'a' && c <= 'z'; }
// \s of the tokenizer's regex: space, \t, \n, \v, \f, \r.
bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a') : c; }

// A token that is one punctuation byte (not a run of letters).
bool is_punctuation(std::string_view token) {
  return token.size() == 1 && !is_letter(static_cast<unsigned char>(token[0]));
}

}  // namespace

WordTokens::WordTokens(std::string_view text) : lowered_(text.size(), '\0') {
  std::transform(text.begin(), text.end(), lowered_.begin(),
                 [](char c) { return static_cast<char>(lower(static_cast<unsigned char>(c))); });
  const std::size_t n = lowered_.size();
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(lowered_[i]);
    if (is_space(c)) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    if (is_letter(c))
      while (end < n && is_letter(static_cast<unsigned char>(lowered_[end]))) ++end;
    tokens_.push_back({i, end - i});
    i = end;
  }
}

WordVocabulary::WordVocabulary(const WordTokens& tokens, std::size_t count, int vocab_size) {
  if (vocab_size < 3)
    throw TaskError("text_lm task: the word tokenizer needs vocab_size >= 3 (BOS, <unk> and one word), got " +
                        std::to_string(vocab_size),
                    {"task.vocab_size"});
  std::unordered_map<std::string_view, int64_t> counts;
  for (std::size_t i = 0; i < count; ++i) ++counts[tokens.token(i)];
  std::vector<std::pair<std::string_view, int64_t>> ranked(counts.begin(), counts.end());
  const auto words = static_cast<std::size_t>(vocab_size - 2);
  if (ranked.size() < words)
    throw TaskError("text_lm task: vocab_size " + std::to_string(vocab_size) + " asks for " + std::to_string(words) +
                        " words, but the training part of task.corpus has only " + std::to_string(ranked.size()) +
                        " distinct tokens; use vocab_size <= " + std::to_string(ranked.size() + 2),
                    {"task.vocab_size", "task.corpus"});
  const auto more_frequent = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(words), ranked.end(), more_frequent);
  words_.reserve(words + 2);
  words_.emplace_back("");
  words_.emplace_back("<unk>");
  for (std::size_t i = 0; i < words; ++i) words_.emplace_back(ranked[i].first);
  for (std::size_t id = 2; id < words_.size(); ++id) ids_.emplace(words_[id], static_cast<int32_t>(id));
}

std::optional<WordVocabulary> WordVocabulary::from_words(std::vector<std::string> words) {
  if (words.size() < 3 || !words[0].empty() || words[1] != "<unk>") return std::nullopt;
  WordVocabulary v;
  v.words_ = std::move(words);
  for (std::size_t id = 2; id < v.words_.size(); ++id) {
    const std::string& word = v.words_[id];
    const WordTokens tokens(word);
    if (tokens.size() != 1 || tokens.token(0) != word) return std::nullopt;
    if (!v.ids_.emplace(word, static_cast<int32_t>(id)).second) return std::nullopt;  // a word twice
  }
  return v;
}

int32_t WordVocabulary::id_of(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? kUnknown : it->second;
}

std::vector<int32_t> WordVocabulary::encode(std::string_view text) const {
  const WordTokens tokens(text);
  std::vector<int32_t> ids(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) ids[i] = id_of(tokens.token(i));
  return ids;
}

std::string WordVocabulary::decode(const int32_t* ids, std::size_t count) const {
  std::string out;
  std::string_view previous;
  for (std::size_t i = 0; i < count; ++i) {
    if (ids[i] <= kBos || ids[i] >= size()) continue;
    const std::string& word = word_of(ids[i]);
    const bool glued = out.empty() || (is_punctuation(word) && word != "(") || previous == "(" || previous == "'";
    if (!glued) out += ' ';
    out += word;
    previous = word;
  }
  return out;
}

}  // namespace sinklab
