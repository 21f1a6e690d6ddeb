#include "report/explorer/token_label_text.h"

#include <cstdio>

namespace sinklab {
namespace {

// The length of the well-formed UTF-8 character at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when text[i] does not start one.
size_t utf8_length(const std::string& text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF) length = 2;
  else if (b >= 0xE0 && b <= 0xEF) {
    length = 3;
    if (b == 0xE0) low = 0xA0;
    if (b == 0xED) high = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    length = 4;
    if (b == 0xF0) low = 0x90;
    if (b == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

// U+2400 + c (the Control Pictures block) in UTF-8.
std::string control_picture(unsigned char c) {
  const unsigned code = 0x2400u + c;
  return {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
          static_cast<char>(0x80 | (code & 0x3F))};
}

}  // namespace

std::string token_label_text(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == ' ') out += "\u2423";        // ␣
    else if (c == '\n') out += "\u23CE";  // ⏎
    else if (c < 0x20) out += control_picture(c);
    else if (c == 0x7F) out += "\u2421";  // ␡
    else if (c < 0x80) out += static_cast<char>(c);
    else if (const size_t n = utf8_length(bytes, i); n > 0) {
      out.append(bytes, i, n);
      i += n;
      continue;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
    ++i;
  }
  return out;
}

}  // namespace sinklab
