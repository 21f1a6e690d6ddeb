#include "tokenizers/regex.h"

#include <oniguruma.h>

#include <mutex>
#include <stdexcept>

#include "tokenizers/tokenizer_error.h"
#include "tokenizers/utf8.h"

namespace sinklab::tok {

namespace {

void initialize_oniguruma() {
  static std::once_flag once;
  std::call_once(once, [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
  });
}

const OnigUChar* bytes(std::string_view s) { return reinterpret_cast<const OnigUChar*>(s.data()); }

}  // namespace

struct Regex::Impl {
  regex_t* regex = nullptr;
};

Regex::Regex(std::string_view pattern) : impl_(std::make_unique<Impl>()) {
  initialize_oniguruma();
  OnigErrorInfo info;
  const int r = onig_new(&impl_->regex, bytes(pattern), bytes(pattern) + pattern.size(), ONIG_OPTION_NONE,
                         ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  if (r != ONIG_NORMAL) {
    OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(message, r, &info);
    impl_->regex = nullptr;
    throw std::invalid_argument(reinterpret_cast<const char*>(message));
  }
}

Regex::~Regex() {
  if (impl_ && impl_->regex) onig_free(impl_->regex);
}

void Regex::find_all(std::string_view text, std::vector<std::pair<size_t, size_t>>& matches) const {
  matches.clear();
  std::unique_ptr<OnigRegion, void (*)(OnigRegion*)> region(onig_region_new(),
                                                            [](OnigRegion* r) { onig_region_free(r, 1); });
  const OnigUChar* begin = bytes(text);
  const OnigUChar* end = begin + text.size();
  size_t pos = 0;
  while (pos <= text.size()) {
    const int r = onig_search(impl_->regex, begin, end, begin + pos, end, region.get(), ONIG_OPTION_NONE);
    if (r == ONIG_MISMATCH) break;
    if (r < 0) {  // e.g. Oniguruma's retry limit on a pathological pattern
      OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
      onig_error_code_to_str(message, r);
      throw TokenizerError(std::string("regular expression search failed: ") + reinterpret_cast<const char*>(message));
    }
    const auto b = static_cast<size_t>(region->beg[0]);
    const auto e = static_cast<size_t>(region->end[0]);
    matches.emplace_back(b, e);
    if (e > b) {
      pos = e;
    } else {
      if (e >= text.size()) break;
      pos = e + utf8_length(static_cast<unsigned char>(text[e]));
    }
  }
}

}  // namespace sinklab::tok
