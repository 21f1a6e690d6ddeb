#include "config_loading/config_loader.h"

#include <algorithm>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "config_loading/closest_match.h"
#include "config_loading/config_consistency.h"
#include "config_loading/config_schema.h"
#include "config_loading/evaluation_work.h"
#include "config_loading/key_locations.h"
#include "config_loading/plugin_fields.h"
#include "config_loading/run_name.h"
#include "config_loading/scalar_value.h"
#include "config_loading/utf8.h"
#include "config_loading/yaml_documents.h"
#include "core/io/file_read.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

std::string join_path(const std::string& section, const std::string& key) {
  return section.empty() ? key : section + "." + key;
}

// yaml-cpp marks are 0-based, and -1 for nodes built in code (they have no line).
int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return describe_scalar(scalar_text(node.Scalar(), node.Tag()));
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "nothing (null)";
  }
}

std::string unknown_key_message(const std::string& section, const std::string& key) {
  const std::vector<std::string> known = child_keys(section);
  if (const auto guess = closest_match(key, known)) return "unknown key; did you mean '" + *guess + "'?";
  return "unknown key; allowed " + std::string(section.empty() ? "at the top level" : "in " + section) + ": " +
         join_names(known);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// How an override is named in messages: as typed, unless it holds bytes that would break the message
// (control characters, invalid UTF-8) or is too long to repeat.
std::string override_origin_text(const std::string& text) {
  constexpr std::size_t kShown = 120;
  std::string shown = escape_for_message(text.size() > kShown ? text.substr(0, kShown) : text);
  if (text.size() > kShown) shown += "... (" + std::to_string(text.size()) + " bytes)";
  return "--set " + shown;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

class Loader {
 public:
  Loader(std::string source, const ConfigVocabulary& vocab, std::optional<double> available_memory_bytes)
      : where_(std::move(source)), vocab_(vocab), available_memory_bytes_(available_memory_bytes) {}

  RunConfig load(const std::string& text, const std::vector<std::string>& overrides) {
    YAML::Node root = parse_document(text);
    for (const auto& o : overrides) apply_override(root, o);
    walk_section(root, "");
    if (where_.is_set("name")) {
      if (const std::string problem = run_name_problem(config_.name); !problem.empty()) {
        throw where_.error("name", problem);
      }
    } else {
      default_name();
    }
    // The default averages up to 128 evaluation inputs, at most one training batch (so a snapshot
    // costs at most about a third of a step) and at most what the task has.
    if (!where_.is_set("analysis.snapshot_samples"))
      config_.analysis.snapshot_samples =
          std::min({config_.analysis.snapshot_samples, config_.task.eval_samples, config_.train.batch_size});
    check_consistency(config_, where_, vocab_);
    resolve_plugin_defaults(config_);  // the resolved config.yaml lists every option of the chosen plug-ins
    check_memory(config_, where_, available_memory_bytes_);  // last: it needs consistent sizes
    // A new run only: a written config.yaml (read without a memory check) was checked when its run began.
    if (available_memory_bytes_) check_evaluation_work(config_, where_);
    return config_;
  }

 private:
  // The file's stem, which names the run folder just like a written name and so obeys the same rule.
  void default_name() {
    config_.name = std::filesystem::path(where_.source()).stem().string();
    if (config_.name.empty()) config_.name = "run";
    const std::string problem = utf8_problem(config_.name).empty() ? run_name_problem(config_.name)
                                                                    : utf8_problem(config_.name);
    if (problem.empty()) return;
    throw ConfigError(where_.source(), 0, "name",
                      "the run name defaults to the config file's stem '" + escape_for_message(config_.name) +
                          "', which " + problem + "; set name: in the file or --set name=...");
  }

  YAML::Node parse_document(const std::string& text) {
    // yaml-cpp reads a file whose lines end in a bare CR as one comment-like line: "empty".
    if (text.find('\r') != std::string::npos && text.find('\n') == std::string::npos)
      throw ConfigError(
          where_.source(), 0, "",
          "the lines end in a bare carriage return (CR, old Mac style); save the file with LF line endings");
    if (const auto line = second_yaml_document_line(text))
      throw ConfigError(where_.source(), *line, "", "a second YAML document starts here; a config is one document");
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's own words for it are "bad file"
      throw ConfigError(where_.source(), e.mark.line + 1, "",
                        "YAML nested deeper than " + std::to_string(e.depth()) + " levels (column " +
                            std::to_string(e.mark.column + 1) + "); a config is a few levels deep");
    } catch (const YAML::Exception& e) {
      throw ConfigError(where_.source(), e.mark.line + 1, "",
                        "YAML syntax error: " + e.msg + " (column " + std::to_string(e.mark.column + 1) + ")");
    }
    if (!root.IsDefined() || root.IsNull()) throw ConfigError(where_.source(), 0, "", "the file is empty (no keys)");
    if (!root.IsMap()) {
      throw ConfigError(where_.source(), line_of(root), "",
                        "the top level must be a map of keys (key: value), got " + describe(root));
    }
    return root;
  }

  // An error about a node seen before the walk has recorded lines: a node an override wrote has no
  // meaningful line of its own, so it is attributed to that override.
  ConfigError node_error(const std::string& path, const YAML::Node& node, const std::string& message) const {
    if (where_.override_origin(path)) return where_.error(path, message);
    return ConfigError(where_.source(), line_of(node), path, message);
  }

  void apply_override(YAML::Node& root, const std::string& text) {
    const std::string origin = override_origin_text(text);
    const auto eq = text.find('=');
    const std::string key = trim(text.substr(0, eq));
    if (eq == std::string::npos || key.empty()) {
      throw ConfigError(origin, 0, "", "malformed override: expected key.path=value, e.g. model.heads=2");
    }
    if (const std::string problem = utf8_problem(key); !problem.empty()) {
      throw ConfigError(origin, 0, "", "the key " + problem);
    }
    const std::vector<std::string> segments = split_path(key);
    std::string path;
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (segments[i].empty()) throw ConfigError(origin, 0, key, "malformed key path: empty part between dots");
      const std::string section = path;
      path = join_path(path, segments[i]);
      if (find_section(path)) continue;
      if (!find_field(path)) throw ConfigError(origin, 0, path, unknown_key_message(section, segments[i]));
      if (i + 1 < segments.size()) {
        throw ConfigError(origin, 0, path, "is a single value and has no key '" + segments[i + 1] + "'");
      }
    }
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      throw ConfigError(origin, 0, key, "YAML syntax error in the value: " + e.msg);
    }
    // A section set to nothing would silently fall back to its defaults (a relu config training softmax
    // after `--set model.attention.normalizer=`): refused like a field set to nothing.
    if (const SectionSpec* section = find_section(key); section && (!value.IsDefined() || value.IsNull()))
      throw ConfigError(origin, 0, key,
                        "expected " +
                            std::string(section->shorthand.empty() ? "a map of keys" : "a value or a map of keys") +
                            ", got nothing (null)");

    YAML::Node node = root;
    path.clear();
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
      path = join_path(path, segments[i]);
      YAML::Node child = node[segments[i]];
      if (!child.IsDefined() || child.IsNull()) {
        child = YAML::Node(YAML::NodeType::Map);
      } else if (child.IsScalar() && !find_section(path)->shorthand.empty()) {
        // `normalizer: relu` plus `--set ...normalizer.divisor=seq_len`: expand the shorthand first.
        YAML::Node expanded(YAML::NodeType::Map);
        expanded[find_section(path)->shorthand] = YAML::Clone(child);
        child = expanded;
      } else if (!child.IsMap()) {
        throw node_error(path, child, "expected a map of keys, got " + describe(child));
      }
      node.reset(child);  // reset() rebinds the handle; operator= would overwrite the node's content
    }
    node[segments.back()] = value;
    where_.add_override(key, origin);
  }

  void walk_section(const YAML::Node& map, const std::string& section) {
    std::set<std::string> seen;
    for (const auto& entry : map) {
      const YAML::Node& key = entry.first;
      if (!key.IsScalar()) throw node_error(section, key, "keys must be plain names, got " + describe(key));
      if (const std::string problem = utf8_problem(key.Scalar()); !problem.empty()) {
        throw node_error(section, key, "the key '" + escape_for_message(key.Scalar()) + "' " + problem);
      }
      const std::string path = join_path(section, key.Scalar());
      if (!where_.override_origin(path) && line_of(key) > 0) where_.set_line(path, line_of(key));
      if (!seen.insert(key.Scalar()).second) throw where_.error(path, "duplicate key (set twice in the same map)");
      where_.mark_set(path);
      if (const SectionSpec* s = find_section(path)) {
        read_section(*s, entry.second, path);
      } else if (const FieldSpec* f = find_field(path)) {
        read_field(*f, entry.second, path);
      } else {
        throw where_.error(path, unknown_key_message(section, key.Scalar()));
      }
    }
  }

  void read_section(const SectionSpec& spec, const YAML::Node& value, const std::string& path) {
    if (value.IsNull()) return;  // `model:` with every key commented out keeps the defaults
    if (value.IsMap()) return walk_section(value, path);
    if (value.IsScalar() && !spec.shorthand.empty()) {
      const std::string sub = join_path(path, spec.shorthand);
      where_.mark_set(sub);
      return read_field(*find_field(sub), value, sub);
    }
    const std::string alt = spec.shorthand.empty() ? "" : " or a " + spec.shorthand;
    throw where_.error(path, "expected a map of keys" + alt + ", got " + describe(value));
  }

  void read_field(const FieldSpec& field, const YAML::Node& value, const std::string& path) {
    if (!value.IsScalar()) {
      throw where_.error(path, "expected a single value (" + field.type + ", " + field.allowed + "), got " +
                                   describe(value));
    }
    // Checked for every key, so that no message below repeats bytes that are not UTF-8.
    if (const std::string problem = utf8_problem(value.Scalar()); !problem.empty()) throw where_.error(path, problem);
    try {
      const ScalarText text = scalar_text(value.Scalar(), value.Tag());
      check_tag(text);
      field.parse(text, config_);
    } catch (const FieldValueError& e) {
      throw where_.error(path, e.what());
    }
  }

  KeyLocations where_;
  const ConfigVocabulary& vocab_;
  std::optional<double> available_memory_bytes_;
  RunConfig config_;
};

}  // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& source_name,
                           const std::vector<std::string>& overrides, const ConfigVocabulary& vocab,
                           std::optional<double> available_memory_bytes) {
  return Loader(source_name, vocab, available_memory_bytes).load(yaml_text, overrides);
}

// A config is a few kilobytes; this bound keeps /dev/zero or a huge file from being read at all.
constexpr uint64_t kMaxConfigFileBytes = 1 << 20;

RunConfig load_run_config(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                          const ConfigVocabulary& vocab, std::optional<double> available_memory_bytes) {
  const std::string source = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    throw ConfigError(source, 0, "", "cannot read the config file: no such file");
  }
  if (std::filesystem::is_directory(file, ec)) {
    throw ConfigError(source, 0, "", "cannot read the config file: it is a directory");
  }
  std::string text;
  try {
    text = read_regular_file(file, kMaxConfigFileBytes, "config file");
  } catch (const FileReadError& e) {
    // The reader's message starts with "config file <path>: ", which ConfigError says already.
    const std::string reason = e.what();
    const std::string prefix = "config file " + source + ": ";
    throw ConfigError(
        source, 0, "",
        "cannot read the config file: " + (reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason));
  }
  return parse_run_config(text, source, overrides, vocab, available_memory_bytes);
}

ConfigVocabulary registered_vocabulary() { return {normalizer_registry().names(), task_names()}; }

RunConfig load_run_config(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                          std::optional<double> available_memory_bytes) {
  return load_run_config(file, overrides, registered_vocabulary(), available_memory_bytes);
}

}  // namespace sinklab
