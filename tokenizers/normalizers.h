#pragma once
// The normalizers of tokenizer.json that the supported families use: NFC/NFD/NFKC/NFKD (utf8proc),
// Prepend, Replace and Sequence. tokenizer_json.cpp refuses every other type by name.
#include <memory>
#include <string>
#include <vector>

#include "tokenizers/regex.h"

namespace sinklab::tok {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Rewrites valid UTF-8 `text` in place.
  virtual void normalize(std::string& text) const = 0;
};

enum class UnicodeForm { NFC, NFD, NFKC, NFKD };
std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form);
// Prepends `prefix` to a non-empty text (HF leaves an empty one empty).
std::unique_ptr<Normalizer> make_prepend(std::string prefix);
// Replaces every match of a literal string (`regex` null) or of a regex by `content`.
std::unique_ptr<Normalizer> make_replace(std::string literal, std::unique_ptr<Regex> regex, std::string content);
std::unique_ptr<Normalizer> make_sequence(std::vector<std::unique_ptr<Normalizer>> steps);

// Replaces matches of `literal` (or of `regex` when non-null) in `text` by `content`.
std::string replace_all(const std::string& text, const std::string& literal, const Regex* regex,
                        const std::string& content);

}  // namespace sinklab::tok
