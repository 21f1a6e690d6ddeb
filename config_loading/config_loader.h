#pragma once
// YAML file (+ `--set a.b.c=value` overrides) -> a validated RunConfig. Every problem is a ConfigError
// whose message names the file (or the override), the 1-based line and the dotted key path.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config_loading/config_error.h"
#include "config_loading/config_writer.h"
#include "config_loading/memory_estimate.h"
#include "config_loading/run_config.h"

namespace sinklab {

// The normalizer and task names a config may use. Commands use the registries' (registered_vocabulary);
// tests may pass their own. An empty list means "not checked here"; the registry then rejects an
// unknown name when it builds.
struct ConfigVocabulary {
  std::vector<std::string> normalizers;
  std::vector<std::string> tasks;
};

// Every registered normalizer (layers/normalizers/normalizer_registry.h) and task (data/task_registry.h).
ConfigVocabulary registered_vocabulary();

// Reads `file`, applies the overrides in order, validates against the registries. A run's own
// config.yaml is read with available_memory_bytes = std::nullopt (it was checked when the run started).
RunConfig load_run_config(const std::filesystem::path& file, const std::vector<std::string>& overrides = {},
                          std::optional<double> available_memory_bytes = available_memory());

// The same with a given vocabulary. The run name defaults to the file's stem.
// A config whose memory estimate (memory_estimate.h) exceeds `available_memory_bytes` is refused;
// the default is this machine's MemAvailable, nullopt skips the check.
RunConfig load_run_config(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                          const ConfigVocabulary& vocab,
                          std::optional<double> available_memory_bytes = available_memory());

// Same from text; `source_name` is used in messages and its stem is the default run name.
RunConfig parse_run_config(const std::string& yaml_text, const std::string& source_name,
                           const std::vector<std::string>& overrides, const ConfigVocabulary& vocab,
                           std::optional<double> available_memory_bytes = available_memory());

}  // namespace sinklab
