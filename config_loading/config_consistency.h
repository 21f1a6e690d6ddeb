#pragma once
// Checks that involve more than one key (or a registry), run after every key parsed on its own.
#include "config_loading/config_loader.h"
#include "config_loading/key_locations.h"
#include "config_loading/run_config.h"

namespace sinklab {

// Throws ConfigError at the key the user most likely has to change.
void check_consistency(const RunConfig& config, const KeyLocations& where, const ConfigVocabulary& vocab);

}  // namespace sinklab
