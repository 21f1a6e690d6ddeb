#pragma once
// Where each key of a config came from (a file line or a `--set` override), so that any later check
// can name the place the user has to edit.
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config_loading/config_error.h"

namespace sinklab {

class KeyLocations {
 public:
  explicit KeyLocations(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  // The value at `path` (and everything below it) was written by this override, e.g. "--set a.b=1".
  void add_override(const std::string& path, const std::string& origin) { overrides_[path] = origin; }
  // The override that wrote `path` or one of its ancestors (the longest match), if any.
  std::optional<std::string> override_origin(const std::string& path) const;

  void set_line(const std::string& path, int line) { lines_[path] = line; }
  // The user wrote this key (in the file or with --set).
  void mark_set(const std::string& path) { set_.insert(path); }
  bool is_set(const std::string& path) const { return set_.count(path) > 0; }

  // An error about `path`, placed at the override that wrote it, else at its line (or its nearest
  // ancestor's line, for keys left at their default), else at the file without a line.
  ConfigError error(const std::string& path, const std::string& message) const;
  // An error about several keys together, placed at the first one the user wrote (overrides first,
  // because the most recent edit is the likeliest culprit); falls back to the first path.
  ConfigError error_at_first_set(std::initializer_list<std::string> paths, const std::string& message) const;
  ConfigError error_at_first_set(const std::vector<std::string>& paths, const std::string& message) const;

 private:
  std::string source_;
  std::map<std::string, std::string> overrides_;
  std::map<std::string, int> lines_;
  std::set<std::string> set_;
};

}  // namespace sinklab
