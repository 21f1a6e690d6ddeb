#pragma once
// UTF-8 checks for config text: string values end up in folder names, JSON files and messages, and the
// JSON writer throws on a byte that is not UTF-8, long after the config was accepted.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sinklab {

// The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF); nullopt when the whole text is valid.
std::optional<std::size_t> invalid_utf8_offset(std::string_view text);

// The offset of the first control character (C0, DEL or C1: tab and newline included); nullopt if none.
std::optional<std::size_t> control_character_offset(std::string_view text);

// "is not valid UTF-8 (byte 0xff at offset 3)", or "" when the text is valid.
std::string utf8_problem(std::string_view text);

// The text with every control character (C0, DEL, C1) and every byte that is not UTF-8 written as
// \xNN, so that a message quoting user text stays on one line and stays valid UTF-8.
std::string escape_for_message(std::string_view text);

}  // namespace sinklab
