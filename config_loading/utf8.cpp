#include "config_loading/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace sinklab {
namespace {

// Length of the well-formed sequence at text[i], or 0 (Unicode table 3-7 of well-formed byte sequences).
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  uint8_t lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) lo = 0xa0;  // overlong
    if (b0 == 0xed) hi = 0x9f;  // surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) lo = 0x90;  // overlong
    if (b0 == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return n;
}

std::string hex_byte(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x", b);
  return buf;
}

// C0 controls, DEL and the C1 controls U+0080..U+009F (0xc2 0x80..0x9f) of a valid sequence of length n.
bool is_control(std::string_view text, std::size_t i, std::size_t n) {
  const auto b = static_cast<uint8_t>(text[i]);
  if (n == 1) return b < 0x20 || b == 0x7f;
  return n == 2 && b == 0xc2 && static_cast<uint8_t>(text[i + 1]) < 0xa0;
}

}  // namespace

std::optional<std::size_t> invalid_utf8_offset(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::optional<std::size_t> control_character_offset(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::max<std::size_t>(sequence_length(text, i), 1);
    if (is_control(text, i, n)) return i;
    i += n;
  }
  return std::nullopt;
}

std::string utf8_problem(std::string_view text) {
  const auto at = invalid_utf8_offset(text);
  if (!at) return "";
  return "is not valid UTF-8 (byte 0x" + hex_byte(static_cast<uint8_t>(text[*at])) + " at offset " +
         std::to_string(*at) + ")";
}

std::string escape_for_message(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    const auto b = static_cast<uint8_t>(text[i]);
    if (n > 0 && !is_control(text, i, n)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += "\\x" + hex_byte(b);
      ++i;
    }
  }
  return out;
}

}  // namespace sinklab
