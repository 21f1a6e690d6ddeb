#pragma once
// Which `--set key=value` overrides change what a config file alone resolves to: they say what a run
// does differently from its file, so they go into the run's default name (docs/config.md, Run name).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "config_loading/run_config.h"

namespace sinklab {

// "model.heads = 2 " -> {"model.heads", "2"}: the key and value of an override, trimmed (the loader has
// checked its shape; one without '=' gives an empty value).
std::pair<std::string, std::string> split_override(const std::string& text);

// The overrides (as {key, value}) whose key resolves to another value in `resolved` (the file with
// every override applied) than in the file alone, in order of first appearance; a key given twice counts
// once, with its last value. When the file does not load on its own (it needs an override to be
// valid), every override counts as a change.
std::vector<std::pair<std::string, std::string>> changed_overrides(const std::filesystem::path& file,
                                                                   const std::vector<std::string>& overrides,
                                                                   const RunConfig& resolved);

}  // namespace sinklab
