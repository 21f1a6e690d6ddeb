#pragma once
// The one table of configuration keys. It drives parsing (config_loader.cpp), writing (to_yaml) and the
// key reference in docs/config.md (config_reference_markdown(); a test keeps the two identical), so a new
// key is added in exactly one place: config_schema.cpp.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config_loading/run_config.h"
#include "core/options/bound.h"  // format_number

namespace sinklab {

// A YAML scalar as the loader hands it to a field: its text and whether it may be read as a number or
// boolean (`plain`): unquoted and untagged, or with an explicit !!int, !!float or !!bool tag. Numbers
// and booleans must be plain: `d_model: "16"` and `d_model: !!str 16` are strings, not numbers.
struct ScalarText {
  std::string text;
  bool plain = true;
  std::string tag;  // the explicit tag as written ("!!int", "!!str", "!custom"); "" for none or quotes
};

// Thrown by FieldSpec::parse with the problem only; the loader adds file, line and key path.
class FieldValueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which registry a string field's value must come from (checked by the loader against the vocabulary).
enum class NameList : uint8_t { none, normalizers, tasks };

struct FieldSpec {
  std::string path;     // dotted, e.g. "model.attention.scale"
  std::string type;     // for people: "integer", "number", "bool", "string", "enum", ...
  std::string allowed;  // for people: ">= 1", "(0, 1)", "none | layer_norm | rms_norm", ...
  std::string doc;
  std::string default_text;  // shown in the docs instead of the emitted default when non-empty
  NameList names = NameList::none;
  std::function<void(const ScalarText&, RunConfig&)> parse;  // parses and range-checks; throws FieldValueError
  std::function<std::string(const RunConfig&)> emit;        // the value as a YAML scalar
  // For keys that only belong with some settings (normalizer options): why the key does not belong
  // with `config`, or "" when it does. Writing a misplaced key is an error and to_yaml leaves it out.
  // Unset = always belongs.
  std::function<std::string(const RunConfig&)> misplaced;
  // Keys added after run folders existed: left out of the resolved config.yaml and of both hashes
  // while at their default, so the checkpoints of older runs still load and resume.
  bool omit_at_default = false;
};

// A map of keys. `shorthand` names the child a plain scalar stands for: `normalizer: relu` means
// `normalizer: {name: relu}`.
struct SectionSpec {
  std::string path;  // "" is the top level
  std::string shorthand;
  std::string doc;
};

const std::vector<FieldSpec>& config_fields();
const std::vector<SectionSpec>& config_sections();
const FieldSpec* find_field(std::string_view path);
const SectionSpec* find_section(std::string_view path);
// The keys allowed directly inside a section, in table order (fields and sub-sections).
std::vector<std::string> child_keys(std::string_view section_path);

// The key reference table (markdown) that docs/config.md embeds verbatim.
std::string config_reference_markdown();

}  // namespace sinklab
