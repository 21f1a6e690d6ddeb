#pragma once
// Plug-in options: a normalizer or a task declares each of its options once, next to its code (key,
// type, default, range, one doc line). The config schema, its error messages, the resolved config.yaml
// and docs/config.md are generated from these declarations (config_loading/plugin_fields.cpp); the plug-in
// reads its values back through PluginOptions.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/options/bound.h"

namespace sinklab {

// path: a file name, recorded absolute (relative names resolve against the working directory when the
// config is loaded) so that a run resumed from another directory reads the same file. text: any string,
// kept as written (the plug-in checks what it means, e.g. text_lm's fixed_token against its vocabulary).
enum class OptionKind : uint8_t { integer, number, boolean, choice, path, text };
using OptionValue = std::variant<int64_t, double, bool, std::string>;

struct OptionSpec {
  std::string key;  // the YAML key inside the plug-in's section, e.g. "divisor"
  OptionKind kind = OptionKind::number;
  OptionValue default_value;
  Bound bound;                       // integer and number options
  std::vector<std::string> choices;  // choice options
  std::string doc;
  std::string allowed_text;  // shown instead of the bound in docs when the real rule needs other keys

  static OptionSpec integer(std::string key, int64_t default_value, Bound bound, std::string doc);
  static OptionSpec number(std::string key, double default_value, Bound bound, std::string doc);
  static OptionSpec boolean(std::string key, bool default_value, std::string doc);
  static OptionSpec choice(std::string key, std::vector<std::string> choices, std::string default_value,
                           std::string doc);
  static OptionSpec path(std::string key, std::string default_value, std::string doc);
  static OptionSpec text(std::string key, std::string default_value, std::string doc);
  OptionSpec& with_allowed_text(std::string text);

  std::string type_text() const;     // "integer", "number", "bool", "enum", "path", "text"
  std::string allowed() const;       // allowed_text, the bound, "true | false" or "a | b | c"
  std::string value_text(const OptionValue& v) const;  // as YAML writes it
  // The same option (two plug-ins may share one declaration, e.g. the relu-family row divisor).
  bool same_as(const OptionSpec& other) const;
};

// Values set in a config, by key. Unset keys fall back to the declared default (PluginOptions).
class OptionValues {
 public:
  void set(const std::string& key, OptionValue value) { values_[key] = std::move(value); }
  const OptionValue* find(const std::string& key) const;
  // The value of a key that is set, as type T; throws std::logic_error when it is unset or another type.
  template <typename T>
  const T& get(const std::string& key) const {
    const OptionValue* v = find(key);
    if (!v || !std::holds_alternative<T>(*v))
      throw std::logic_error("option '" + key + "' is unset or of another type");
    return std::get<T>(*v);
  }
  void clear() { values_.clear(); }
  const std::map<std::string, OptionValue>& all() const { return values_; }
  bool operator==(const OptionValues&) const = default;

 private:
  std::map<std::string, OptionValue> values_;
};

// A plug-in's resolved options: its declarations plus the values set. The getters throw
// std::logic_error for a key the plug-in did not declare or a type it did not declare (a bug, not
// a user error: the config loader has already checked keys, types and ranges).
class PluginOptions {
 public:
  PluginOptions(const std::vector<OptionSpec>& specs, const OptionValues& values) : specs_(specs), values_(values) {}

  int64_t integer(std::string_view key) const;
  double number(std::string_view key) const;
  bool flag(std::string_view key) const;
  const std::string& choice(std::string_view key) const;
  const std::string& path(std::string_view key) const;
  const std::string& text(std::string_view key) const;
  // The index of a choice option's value in its declared choices (to map it onto an enum).
  int choice_index(std::string_view key) const;

 private:
  const OptionSpec& spec(std::string_view key, OptionKind kind) const;
  const OptionValue& value(const OptionSpec& spec) const;
  const std::vector<OptionSpec>& specs_;
  const OptionValues& values_;
};

// Throws std::logic_error when a value set does not fit its declaration (wrong type, out of range,
// unknown choice) or a key is not declared: plug-ins check what code (not YAML) hands them.
void check_option_values(const std::vector<OptionSpec>& specs, const OptionValues& values, std::string_view owner);

}  // namespace sinklab
