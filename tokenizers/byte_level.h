#pragma once
// GPT-2's byte <-> character table: byte-level BPE spells every byte as a printable character
// (space is 'Ġ', newline 'Ċ'), so a vocabulary of strings covers any byte sequence.
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace sinklab::tok {

// The UTF-8 spelling of byte b's character.
const std::string& byte_to_chars(unsigned char b);
// Every byte of `text` spelled as its character.
std::string bytes_to_chars(std::string_view text);
// The byte a character stands for, if it is one of the 256.
std::optional<unsigned char> char_to_byte(char32_t c);

}  // namespace sinklab::tok
