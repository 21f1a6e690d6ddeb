#include "config_loading/yaml_documents.h"

namespace sinklab {
namespace {

// "---" or "..." at column 0, alone or followed by a space or tab (YAML's document markers).
bool is_marker(std::string_view line, std::string_view marker) {
  if (line.substr(0, 3) != marker) return false;
  return line.size() == 3 || line[3] == ' ' || line[3] == '\t';
}

// Blank or a comment: not content of a document.
bool is_blank(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#';
}

}  // namespace

std::optional<int> second_yaml_document_line(std::string_view text) {
  bool content = false;  // the current document has begun (content or its "---")
  bool ended = false;    // a "..." closed it
  int number = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    start = end + 1;
    if (is_marker(line, "---")) {
      if (content || ended) return number;
      content = true;
    } else if (is_marker(line, "...")) {
      ended = true;
    } else if (!is_blank(line)) {
      if (ended) return number;
      content = true;
    }
    if (end == text.size()) break;
  }
  return std::nullopt;
}

}  // namespace sinklab
