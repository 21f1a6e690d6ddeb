#pragma once
// YAML file (+ `--set a.b.c=value` overrides) -> a validated RunConfig. Every problem is a ConfigError
// whose message names the file (or the override), the 1-based line and the dotted key path.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "configs/config_error.h"
#include "configs/config_writer.h"
#include "configs/memory_estimate.h"
#include "configs/run_config.h"

namespace sinklab {

// Names that live in libraries above configs/ (the normalizer registry is in layers/, tasks in data/),
// so the caller passes them in. An empty list means "not checked here" (for tools that cannot see the
// registry, such as sweep planning); the registry then rejects an unknown name when it builds.
struct ConfigVocabulary {
  std::vector<std::string> normalizers;
  std::vector<std::string> tasks;
};

// Reads `file`, applies the overrides in order, validates. The run name defaults to the file's stem.
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
