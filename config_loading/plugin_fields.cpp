#include "config_loading/plugin_fields.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "config_loading/closest_match.h"
#include "config_loading/scalar_value.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

// One kind of plug-in as the schema sees it: where its options live in the config and which
// plug-in is chosen.
struct PluginFamily {
  std::string section;  // "model.attention.normalizer"
  std::string what;     // "normalizer"
  OptionValues& (*values)(RunConfig&);
  const std::string& (*chosen)(const RunConfig&);
  std::vector<std::pair<std::string, const std::vector<OptionSpec>*>> plugins;  // name, its options
};

PluginFamily normalizers() {
  PluginFamily f{"model.attention.normalizer", "normalizer",
                 [](RunConfig& c) -> OptionValues& { return c.model.attention.normalizer.options; },
                 [](const RunConfig& c) -> const std::string& { return c.model.attention.normalizer.name; },
                 {}};
  for (const auto& r : normalizer_registry().registrations()) f.plugins.emplace_back(r.name, &r.options);
  return f;
}

PluginFamily tasks() {
  PluginFamily f{"task", "task", [](RunConfig& c) -> OptionValues& { return c.task.options; },
                 [](const RunConfig& c) -> const std::string& { return c.task.name; }, {}};
  for (const auto& r : task_registrations()) f.plugins.emplace_back(r.name, &r.options);
  return f;
}

std::string absolute_path(const std::string& text) {
  if (text.empty()) throw FieldValueError("an empty path");
  return std::filesystem::absolute(text).lexically_normal().string();
}

OptionValue parse_option(const OptionSpec& spec, const ScalarText& s) {
  switch (spec.kind) {
    case OptionKind::integer: {
      const int64_t v = parse_integer(s);
      check_bound(static_cast<double>(v), spec.bound, s.text);
      return v;
    }
    case OptionKind::number: {
      const double v = parse_number(s);
      check_bound(v, spec.bound, s.text);
      return v;
    }
    case OptionKind::boolean: return parse_bool(s);
    case OptionKind::path: return absolute_path(s.text);
    case OptionKind::text: return s.text;
    case OptionKind::choice: break;
  }
  if (std::find(spec.choices.begin(), spec.choices.end(), s.text) != spec.choices.end()) return s.text;
  std::string message = "unknown value " + describe_scalar(s) + "; allowed: " + spec.allowed();
  if (const auto guess = closest_match(s.text, spec.choices)) message += "; did you mean '" + *guess + "'?";
  throw FieldValueError(message);
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// One field per distinct option key of the family, in registration order. Plug-ins that share a key
// must share its declaration (one meaning per key).
std::vector<FieldSpec> fields_of(const PluginFamily& family) {
  std::vector<FieldSpec> fields;
  std::vector<std::pair<const OptionSpec*, std::vector<std::string>>> keys;  // declaration, owners
  for (const auto& [name, options] : family.plugins) {
    for (const OptionSpec& spec : *options) {
      auto it = std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first->key == spec.key; });
      if (it == keys.end()) {
        keys.push_back({&spec, {name}});
      } else if (!it->first->same_as(spec)) {
        throw std::logic_error(family.what + " option '" + spec.key + "' of '" + name +
                               "' differs from the declaration of '" + it->second.front() +
                               "': plug-ins sharing a key must share its OptionSpec");
      } else {
        it->second.push_back(name);
      }
    }
  }
  for (const auto& key : keys) {
    const OptionSpec spec = *key.first;  // copied into the closures: the field outlives nothing it needs
    const std::vector<std::string> owners = key.second;
    FieldSpec f;
    f.path = family.section + "." + spec.key;
    f.type = spec.type_text();
    f.allowed = spec.allowed();
    f.doc = spec.doc + " (" + [&] {
      std::string names;
      for (const auto& o : owners) names += (names.empty() ? "" : ", ") + o;
      return names;
    }() + " only)";
    const auto values = family.values;
    const auto chosen = family.chosen;
    f.parse = [spec, values](const ScalarText& s, RunConfig& c) { values(c).set(spec.key, parse_option(spec, s)); };
    f.emit = [spec, values](const RunConfig& c) {
      const OptionValue* v = values(const_cast<RunConfig&>(c)).find(spec.key);
      return spec.value_text(v ? *v : spec.default_value);
    };
    const std::string what = family.what;
    f.misplaced = [owners, chosen, what](const RunConfig& c) -> std::string {
      const std::string& actual = chosen(c);
      if (std::find(owners.begin(), owners.end(), actual) != owners.end()) return "";
      return "is an option of " + what + (owners.size() > 1 ? "s " : " ") + quoted_list(owners) + " only, but the " +
             what + " is '" + actual + "'";
    };
    fields.push_back(std::move(f));
  }
  return fields;
}

void resolve_family(const PluginFamily& family, RunConfig& config) {
  for (const auto& [name, options] : family.plugins) {
    if (name != family.chosen(config)) continue;
    OptionValues& values = family.values(config);
    for (const OptionSpec& spec : *options)
      if (!values.find(spec.key))
        values.set(spec.key, spec.kind == OptionKind::path ? absolute_path(std::get<std::string>(spec.default_value))
                                                           : spec.default_value);
  }
}

}  // namespace

std::vector<FieldSpec> normalizer_option_fields() { return fields_of(normalizers()); }
std::vector<FieldSpec> task_option_fields() { return fields_of(tasks()); }

void resolve_plugin_defaults(RunConfig& config) {
  resolve_family(normalizers(), config);
  resolve_family(tasks(), config);
}

}  // namespace sinklab
