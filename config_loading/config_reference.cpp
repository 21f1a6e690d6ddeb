// The key reference table of docs/config.md, generated from the schema so the docs cannot go stale.
#include "config_loading/config_schema.h"

namespace sinklab {

namespace {

// A pipe inside a markdown table cell would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::string config_reference_markdown() {
  const RunConfig defaults;
  std::string out = "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const auto& f : config_fields()) {
    const std::string def = f.default_text.empty() ? "`" + f.emit(defaults) + "`" : f.default_text;
    out += "| `" + f.path + "` | " + cell(f.type) + " | " + cell(def) + " | " + cell(f.allowed) + " | " +
           cell(f.doc) + " |\n";
  }
  return out;
}

}  // namespace sinklab
