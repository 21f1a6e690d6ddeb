#include "config_loading/changed_overrides.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "config_loading/config_loader.h"

namespace sinklab {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The value at a dotted key of a resolved config, as YAML text; nothing when the key is absent.
std::optional<std::string> resolved_value(const YAML::Node& root, const std::string& key) {
  YAML::Node node;
  node.reset(root);
  std::istringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!node.IsMap()) return std::nullopt;
    const YAML::Node child = static_cast<const YAML::Node&>(node)[part];  // const: a lookup adds nothing
    if (!child) return std::nullopt;
    node.reset(child);  // `node = child` would overwrite the map with the child
  }
  return YAML::Dump(node);
}

}  // namespace

std::pair<std::string, std::string> split_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) return {trimmed(text), ""};
  return {trimmed(text.substr(0, eq)), trimmed(text.substr(eq + 1))};
}

std::vector<std::pair<std::string, std::string>> changed_overrides(const std::filesystem::path& file,
                                                                   const std::vector<std::string>& overrides,
                                                                   const RunConfig& resolved) {
  std::vector<std::pair<std::string, std::string>> given;  // unique keys, last value
  for (const auto& text : overrides) {
    auto kv = split_override(text);
    const auto same = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first == kv.first; });
    if (same != given.end()) {
      same->second = kv.second;
    } else {
      given.push_back(std::move(kv));
    }
  }
  std::optional<YAML::Node> alone;
  try {
    alone = YAML::Load(to_yaml(load_run_config(file, {}, std::nullopt)));
  } catch (const ConfigError&) {
    return given;  // nothing to compare with
  }
  const YAML::Node with = YAML::Load(to_yaml(resolved));
  std::vector<std::pair<std::string, std::string>> changed;
  for (auto& kv : given)
    if (resolved_value(*alone, kv.first) != resolved_value(with, kv.first)) changed.push_back(std::move(kv));
  return changed;
}

}  // namespace sinklab
