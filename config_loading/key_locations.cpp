#include "config_loading/key_locations.h"

namespace sinklab {
namespace {

std::string parent_path(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

}  // namespace

std::optional<std::string> KeyLocations::override_origin(const std::string& path) const {
  for (std::string p = path; !p.empty(); p = parent_path(p)) {
    if (const auto it = overrides_.find(p); it != overrides_.end()) return it->second;
  }
  return std::nullopt;
}

ConfigError KeyLocations::error(const std::string& path, const std::string& message) const {
  if (const auto origin = override_origin(path)) return ConfigError(*origin, 0, path, message);
  for (std::string p = path; !p.empty(); p = parent_path(p)) {
    if (const auto it = lines_.find(p); it != lines_.end()) return ConfigError(source_, it->second, path, message);
  }
  return ConfigError(source_, 0, path, message);
}

ConfigError KeyLocations::error_at_first_set(std::initializer_list<std::string> paths,
                                             const std::string& message) const {
  return error_at_first_set(std::vector<std::string>(paths), message);
}

ConfigError KeyLocations::error_at_first_set(const std::vector<std::string>& paths,
                                             const std::string& message) const {
  for (const auto& p : paths) {
    if (is_set(p) && override_origin(p)) return error(p, message);
  }
  for (const auto& p : paths) {
    if (is_set(p)) return error(p, message);
  }
  return error(paths.front(), message);
}

}  // namespace sinklab
