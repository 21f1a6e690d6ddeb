#pragma once
// The pre-tokenizer and Replace patterns of tokenizer.json, compiled with Oniguruma: the engine Hugging
// Face's tokenizers itself uses (Ruby syntax, UTF-8, Unicode classes), so \p{L}, \s, (?i:...) and
// lookahead mean exactly what the file's authors tested (docs/tokenizers.md).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sinklab::tok {

class Regex {
 public:
  // Throws std::invalid_argument with Oniguruma's message for a pattern it cannot compile.
  explicit Regex(std::string_view pattern);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Every non-overlapping match of valid UTF-8 `text`, left to right, as byte ranges [begin, end).
  // After an empty match the search moves on by one character.
  void find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& matches) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sinklab::tok
