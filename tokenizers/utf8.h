#pragma once
// UTF-8 helpers for the tokenizers. Text from a user may hold invalid UTF-8: to_valid_utf8 replaces
// each maximal invalid subpart by one U+FFFD, as the WHATWG TextDecoder and Rust's
// String::from_utf8_lossy do, so every later stage sees valid UTF-8.
#include <cstddef>
#include <string>
#include <string_view>

namespace sinklab::tok {

std::string to_valid_utf8(std::string_view bytes);

// The code point starting at byte `i` of valid UTF-8 `s`; advances `i` past it.
char32_t next_code_point(std::string_view s, size_t& i);
// The code point ending just before byte `end` of valid UTF-8 `s`.
char32_t last_code_point(std::string_view s, size_t end);
void append_utf8(std::string& out, char32_t c);
// Byte length of the UTF-8 sequence that starts with `lead` (1 for a stray continuation byte).
size_t utf8_length(unsigned char lead);

// Unicode White_Space, as Rust's char::is_whitespace (the added tokens' lstrip/rstrip).
bool is_whitespace(char32_t c);
// Letters and numbers (general categories L*, N*) or '_': a "word" character for single_word.
bool is_word_char(char32_t c);

}  // namespace sinklab::tok
