#pragma once
// config.json's "rope_scaling" (null, linear, llama3) into a model config's RopeConfig; any other kind
// (dynamic NTK, YaRN, longrope, ...) or unknown field is refused, naming it.
#include "layers/model_config.h"
#include "models/open_models/hf_config.h"

namespace sinklab {

void read_rope_scaling(const HfConfig& config, RopeConfig& rope);

}  // namespace sinklab
