#include "tokenizers/normalizers.h"

#include <utf8proc.h>

#include <cstdlib>
#include <stdexcept>

#include "tokenizers/tokenizer_error.h"

namespace sinklab::tok {

namespace {

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(UnicodeForm form) : form_(form) {}
  void normalize(std::string& text) const override {
    int options = UTF8PROC_STABLE;
    switch (form_) {
      case UnicodeForm::NFC: options |= UTF8PROC_COMPOSE; break;
      case UnicodeForm::NFD: options |= UTF8PROC_DECOMPOSE; break;
      case UnicodeForm::NFKC: options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT; break;
      case UnicodeForm::NFKD: options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT; break;
    }
    // An explicit length (no UTF8PROC_NULLTERM), so a NUL inside the text is kept.
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(options));
    if (n < 0) throw TokenizerError(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
    text.assign(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
    std::free(out);
  }

 private:
  UnicodeForm form_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class Replace final : public Normalizer {
 public:
  Replace(std::string literal, std::unique_ptr<Regex> regex, std::string content)
      : literal_(std::move(literal)), regex_(std::move(regex)), content_(std::move(content)) {}
  void normalize(std::string& text) const override { text = replace_all(text, literal_, regex_.get(), content_); }

 private:
  std::string literal_;
  std::unique_ptr<Regex> regex_;
  std::string content_;
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::string replace_all(const std::string& text, const std::string& literal, const Regex* regex,
                        const std::string& content) {
  std::string out;
  out.reserve(text.size());
  if (regex) {
    std::vector<std::pair<size_t, size_t>> matches;
    regex->find_all(text, matches);
    size_t prev = 0;
    for (const auto& [b, e] : matches) {
      out.append(text, prev, b - prev);
      out += content;
      prev = e;
    }
    out.append(text, prev);
    return out;
  }
  if (literal.empty()) return text;  // HF's empty pattern matches nothing worth replacing here
  size_t prev = 0;
  for (size_t pos = text.find(literal); pos != std::string::npos; pos = text.find(literal, prev)) {
    out.append(text, prev, pos - prev);
    out += content;
    prev = pos + literal.size();
  }
  out.append(text, prev);
  return out;
}

std::unique_ptr<Normalizer> make_unicode_normalizer(UnicodeForm form) {
  return std::make_unique<UnicodeNormalizer>(form);
}
std::unique_ptr<Normalizer> make_prepend(std::string prefix) { return std::make_unique<Prepend>(std::move(prefix)); }
std::unique_ptr<Normalizer> make_replace(std::string literal, std::unique_ptr<Regex> regex, std::string content) {
  return std::make_unique<Replace>(std::move(literal), std::move(regex), std::move(content));
}
std::unique_ptr<Normalizer> make_sequence(std::vector<std::unique_ptr<Normalizer>> steps) {
  return std::make_unique<Sequence>(std::move(steps));
}

}  // namespace sinklab::tok
