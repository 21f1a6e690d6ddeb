#pragma once
// RunConfig -> YAML text. The output lists every key (defaults included) in the documented order and
// loads back to an equal RunConfig, so it is what a run directory stores as its resolved config.
#include <cstdint>
#include <string>

#include "config_loading/run_config.h"

namespace sinklab {

std::string to_yaml(const RunConfig& config);

// FNV-1a 64 of to_yaml(config): equal configs have equal hashes; checkpoints store it and resuming
// requires it to match.
uint64_t config_hash(const RunConfig& config);

// FNV-1a 64 of what shapes the model: every `model.` key that belongs with the config, as to_yaml
// writes it, plus the widths and sequence length the task gives the model. Checkpoints store it too:
// loading weights requires only this one to match (docs/models.md).
uint64_t model_shaping_hash(const RunConfig& config, int input_dim, int output_dim, int seq_len);

}  // namespace sinklab
