#pragma once
// A token's text as the explorer page shows it on an axis or in the hover readout. Token texts are any
// bytes (a character tokenizer cuts UTF-8 characters into single bytes), so the page gets valid UTF-8
// with nothing invisible:
//   ' ' -> "␣", '\n' -> "⏎", other control bytes 0x00-0x1F -> their Control Pictures (U+2400 + byte,
//   '\t' -> "␉"), 0x7F -> "␡", a byte that is not part of a well-formed UTF-8 character -> "\xNN"
//   (uppercase hex); well-formed UTF-8 characters (and '<', '&', ...) are kept: the page only ever puts
//   the text into the document as text (textContent, canvas fillText), never as HTML.
#include <string>

namespace sinklab {

std::string token_label_text(const std::string& bytes);

}  // namespace sinklab
