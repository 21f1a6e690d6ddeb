#pragma once
// Checks that involve more than one key (or a registry), run after every key parsed on its own.
#include "configs/config_loader.h"
#include "configs/key_locations.h"
#include "configs/run_config.h"

namespace sinklab {

// Throws ConfigError at the key the user most likely has to change.
void check_consistency(const RunConfig& config, const KeyLocations& where, const ConfigVocabulary& vocab);

}  // namespace sinklab
