#include "core/options/option_spec.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " | ") + n;
  return out;
}

}  // namespace

OptionSpec OptionSpec::integer(std::string key, int64_t default_value, Bound bound, std::string doc) {
  return {std::move(key), OptionKind::integer, default_value, bound, {}, std::move(doc), {}};
}

OptionSpec OptionSpec::number(std::string key, double default_value, Bound bound, std::string doc) {
  return {std::move(key), OptionKind::number, default_value, bound, {}, std::move(doc), {}};
}

OptionSpec OptionSpec::boolean(std::string key, bool default_value, std::string doc) {
  return {std::move(key), OptionKind::boolean, default_value, {}, {}, std::move(doc), {}};
}

OptionSpec OptionSpec::choice(std::string key, std::vector<std::string> choices, std::string default_value,
                              std::string doc) {
  return {std::move(key), OptionKind::choice, std::move(default_value), {}, std::move(choices), std::move(doc), {}};
}

OptionSpec OptionSpec::path(std::string key, std::string default_value, std::string doc) {
  return {std::move(key), OptionKind::path, std::move(default_value), {}, {}, std::move(doc), {}};
}

OptionSpec OptionSpec::text(std::string key, std::string default_value, std::string doc) {
  return {std::move(key), OptionKind::text, std::move(default_value), {}, {}, std::move(doc), {}};
}

OptionSpec& OptionSpec::with_allowed_text(std::string text) {
  allowed_text = std::move(text);
  return *this;
}

std::string OptionSpec::type_text() const {
  switch (kind) {
    case OptionKind::integer: return "integer";
    case OptionKind::number: return "number";
    case OptionKind::boolean: return "bool";
    case OptionKind::choice: return "enum";
    case OptionKind::path: return "path";
    case OptionKind::text: return "text";
  }
  return "";
}

std::string OptionSpec::allowed() const {
  if (!allowed_text.empty()) return allowed_text;
  switch (kind) {
    case OptionKind::integer:
    case OptionKind::number: return bound.text();
    case OptionKind::boolean: return "true | false";
    case OptionKind::choice: return join(choices);
    case OptionKind::path: return "a readable file";
    case OptionKind::text: return "any text";
  }
  return "";
}

std::string OptionSpec::value_text(const OptionValue& v) const {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return format_number(*d);
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return std::get<std::string>(v);
}

bool OptionSpec::same_as(const OptionSpec& o) const {
  return key == o.key && kind == o.kind && default_value == o.default_value && bound == o.bound &&
         choices == o.choices && doc == o.doc && allowed_text == o.allowed_text;
}

const OptionValue* OptionValues::find(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

const OptionSpec& PluginOptions::spec(std::string_view key, OptionKind kind) const {
  for (const auto& s : specs_) {
    if (s.key != key) continue;
    if (s.kind != kind) throw std::logic_error("option '" + s.key + "' is declared as " + s.type_text());
    return s;
  }
  throw std::logic_error("option '" + std::string(key) + "' is not declared");
}

const OptionValue& PluginOptions::value(const OptionSpec& spec) const {
  const OptionValue* v = values_.find(spec.key);
  return v ? *v : spec.default_value;
}

int64_t PluginOptions::integer(std::string_view key) const {
  return std::get<int64_t>(value(spec(key, OptionKind::integer)));
}

double PluginOptions::number(std::string_view key) const {
  return std::get<double>(value(spec(key, OptionKind::number)));
}

bool PluginOptions::flag(std::string_view key) const { return std::get<bool>(value(spec(key, OptionKind::boolean))); }

const std::string& PluginOptions::choice(std::string_view key) const {
  return std::get<std::string>(value(spec(key, OptionKind::choice)));
}

const std::string& PluginOptions::path(std::string_view key) const {
  return std::get<std::string>(value(spec(key, OptionKind::path)));
}

const std::string& PluginOptions::text(std::string_view key) const {
  return std::get<std::string>(value(spec(key, OptionKind::text)));
}

int PluginOptions::choice_index(std::string_view key) const {
  const OptionSpec& s = spec(key, OptionKind::choice);
  const auto& v = std::get<std::string>(value(s));
  const auto it = std::find(s.choices.begin(), s.choices.end(), v);
  if (it == s.choices.end()) throw std::logic_error("option '" + s.key + "': '" + v + "' is not one of its choices");
  return static_cast<int>(it - s.choices.begin());
}

void check_option_values(const std::vector<OptionSpec>& specs, const OptionValues& values, std::string_view owner) {
  for (const auto& entry : values.all()) {
    const std::string& key = entry.first;  // named, not a structured binding: clang 14 cannot capture those
    const OptionValue& v = entry.second;
    const auto it = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.key == key; });
    const std::string where = std::string(owner) + " option '" + key + "'";
    if (it == specs.end()) throw std::logic_error(where + " is not declared");
    const OptionSpec& s = *it;
    const bool type_ok = (s.kind == OptionKind::integer && std::holds_alternative<int64_t>(v)) ||
                         (s.kind == OptionKind::number && std::holds_alternative<double>(v)) ||
                         (s.kind == OptionKind::boolean && std::holds_alternative<bool>(v)) ||
                         ((s.kind == OptionKind::choice || s.kind == OptionKind::path || s.kind == OptionKind::text) &&
                          std::holds_alternative<std::string>(v));
    if (!type_ok) throw std::logic_error(where + " must be " + s.type_text());
    if (s.kind == OptionKind::integer && !s.bound.contains(static_cast<double>(std::get<int64_t>(v))))
      throw std::logic_error(where + " must be " + s.allowed());
    if (s.kind == OptionKind::number && !s.bound.contains(std::get<double>(v)))
      throw std::logic_error(where + " must be " + s.allowed());
    if (s.kind == OptionKind::choice &&
        std::find(s.choices.begin(), s.choices.end(), std::get<std::string>(v)) == s.choices.end())
      throw std::logic_error(where + " must be one of " + s.allowed());
    if (s.kind == OptionKind::path && std::get<std::string>(v).empty()) throw std::logic_error(where + " is empty");
  }
}

}  // namespace sinklab
