#pragma once
// How many YAML documents a config or sweep file holds, without parsing it: yaml-cpp's LoadAll loops
// forever on some malformed inputs (a stray "]" after a comment, found by fuzzing), and Load reads the
// first document and drops the rest without a word.
#include <optional>
#include <string_view>

namespace sinklab {

// The 1-based line where a second document starts: a second "---" marker at column 0 (a first one
// before any content only opens the first document), or content after a "..." end marker. Nothing
// when the text holds at most one document.
std::optional<int> second_yaml_document_line(std::string_view text);

}  // namespace sinklab
