#pragma once
// Added and special tokens: matched in the text before the model sees it, as HF's AddedVocabulary
// does. Tokens with normalized=false are looked for in the raw text, the others in the normalized
// pieces; at each position the longest token wins, leftmost first. single_word refuses a match inside
// a word; lstrip/rstrip swallow the whitespace on that side.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sinklab::tok {

struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool single_word = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

struct Segment {
  int32_t token_id = -1;  // an added token, or -1 for the text [begin, end)
  size_t begin = 0, end = 0;
};

class AddedTokenMatcher {
 public:
  // `patterns` holds the text each token is matched as (its normalized content for normalized tokens).
  void add(std::string pattern, const AddedToken* token);
  bool empty() const { return by_first_byte_.empty(); }
  // Splits valid UTF-8 `text` into added tokens and the text between them (non-empty ranges only).
  std::vector<Segment> split(std::string_view text) const;

 private:
  struct Entry {
    std::string pattern;
    const AddedToken* token;
  };
  std::unordered_map<unsigned char, std::vector<Entry>> by_first_byte_;  // longest first
};

}  // namespace sinklab::tok
