#pragma once
// Size keys of a config.json, range-checked into the int fields of a model config.
#include <string>

#include "layers/model_config.h"
#include "models/open_models/hf_config.h"

namespace sinklab {

// config[key] (required, or `fallback` when >= 0 and the key is absent), in [1, limit].
int config_size(const HfConfig& config, const std::string& key, int64_t fallback = -1, int64_t limit = 1 << 24);
// The head width: head_dim when given (Qwen3, some Llamas), else hidden / heads (which must divide).
int config_head_dim(const HfConfig& config, int hidden, int heads, const char* hidden_key, const char* heads_key);
// Head width as a model config expresses it: split when heads x width = d_model, else fixed.
HeadDim head_dim_for(int d_model, int heads, int head_dim);

}  // namespace sinklab
