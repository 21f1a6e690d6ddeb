#include "config_loading/config_error.h"

#include <utility>

namespace sinklab {
namespace {

std::string format(const std::string& source, int line, const std::string& key, const std::string& message) {
  // Appends only: GCC 12 reports a false -Wrestrict on `":" + std::to_string(line)`.
  std::string out = source;
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ");
  if (!key.empty()) out.append(key).append(": ");
  return out.append(message);
}

}  // namespace

ConfigError::ConfigError(std::string source, int line, std::string key, std::string message)
    : std::runtime_error(format(source, line, key, message)),
      source_(std::move(source)),
      line_(line),
      key_(std::move(key)),
      detail_(std::move(message)) {}

}  // namespace sinklab
