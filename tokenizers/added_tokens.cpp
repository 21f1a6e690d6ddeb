#include "tokenizers/added_tokens.h"

#include <algorithm>

#include "tokenizers/utf8.h"

namespace sinklab::tok {

void AddedTokenMatcher::add(std::string pattern, const AddedToken* token) {
  if (pattern.empty()) return;  // an empty token can never be matched
  auto& bucket = by_first_byte_[static_cast<unsigned char>(pattern[0])];
  bucket.push_back({std::move(pattern), token});
  std::stable_sort(bucket.begin(), bucket.end(),
                   [](const Entry& a, const Entry& b) { return a.pattern.size() > b.pattern.size(); });
}

std::vector<Segment> AddedTokenMatcher::split(std::string_view text) const {
  std::vector<Segment> out;
  size_t start_offset = 0;  // the end of the last accepted match
  size_t pos = 0;           // where the search for the next match starts
  while (pos < text.size()) {
    // The leftmost position where a token starts, and there the longest token.
    const Entry* found = nullptr;
    size_t at = pos;
    for (; at < text.size() && !found; ++at) {
      auto bucket = by_first_byte_.find(static_cast<unsigned char>(text[at]));
      if (bucket == by_first_byte_.end()) continue;
      for (const Entry& e : bucket->second) {
        if (text.compare(at, e.pattern.size(), e.pattern) == 0) {
          found = &e;
          break;
        }
      }
      if (found) break;
    }
    if (!found) break;
    size_t begin = at, end = at + found->pattern.size();
    pos = end;
    const AddedToken& token = *found->token;
    if (token.single_word) {
      const bool word_before = begin > 0 && is_word_char(last_code_point(text, begin));
      size_t after = end;
      const bool word_after = end < text.size() && is_word_char(next_code_point(text, after));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      while (begin > start_offset) {
        size_t prev = begin - 1;
        while (prev > 0 && (static_cast<unsigned char>(text[prev]) & 0xC0) == 0x80) --prev;
        size_t probe = prev;
        if (!is_whitespace(next_code_point(text, probe))) break;
        begin = prev;
      }
    }
    if (token.rstrip) {
      while (end < text.size()) {
        size_t probe = end;
        if (!is_whitespace(next_code_point(text, probe))) break;
        end = probe;
      }
    }
    begin = std::max(begin, start_offset);
    if (start_offset < begin) out.push_back({-1, start_offset, begin});
    out.push_back({token.id, begin, end});
    start_offset = end;
    pos = std::max(pos, end);
  }
  if (start_offset < text.size()) out.push_back({-1, start_offset, text.size()});
  return out;
}

}  // namespace sinklab::tok
