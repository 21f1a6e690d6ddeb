#include "tokenizers/byte_level.h"

#include <vector>

#include "tokenizers/utf8.h"

namespace sinklab::tok {

namespace {

struct Tables {
  std::array<std::string, 256> spelling;
  std::array<char32_t, 256> code_point{};
};

// Printable Latin-1 bytes stand for themselves; the other 68 are moved to U+0100 onwards in order.
const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t.code_point[b] = printable ? static_cast<char32_t>(b) : next++;
      append_utf8(t.spelling[b], t.code_point[b]);
    }
    return t;
  }();
  return t;
}

}  // namespace

const std::string& byte_to_chars(unsigned char b) { return tables().spelling[b]; }

std::string bytes_to_chars(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (const char c : text) out += byte_to_chars(static_cast<unsigned char>(c));
  return out;
}

std::optional<unsigned char> char_to_byte(char32_t c) {
  if (c < 256) {
    const auto b = static_cast<unsigned char>(c);
    if (tables().code_point[b] == c) return b;
    return std::nullopt;
  }
  if (c < 256 + 68) {
    for (int b = 0; b < 256; ++b)
      if (tables().code_point[b] == c) return static_cast<unsigned char>(b);
  }
  return std::nullopt;
}

}  // namespace sinklab::tok
