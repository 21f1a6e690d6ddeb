#pragma once
// RunConfig -> YAML text. The output lists every key (defaults included) in the documented order and
// loads back to an equal RunConfig, so it is what a run directory stores as its resolved config.
#include <cstdint>
#include <string>

#include "configs/run_config.h"

namespace sinklab {

std::string to_yaml(const RunConfig& config);

// FNV-1a 64 of to_yaml(config): equal configs have equal hashes; checkpoints store it.
uint64_t config_hash(const RunConfig& config);

}  // namespace sinklab
