#pragma once
// The one list of open-checkpoint families (open_model_registry.cpp: one line each).
#include <string>
#include <vector>

#include "models/open_models/open_model_family.h"

namespace sinklab {

const std::vector<OpenModelFamily>& open_model_families();
// The family reading `model_type`, or nullptr.
const OpenModelFamily* find_open_model_family(const std::string& model_type);
// Every model_type a family reads, sorted, for messages.
std::vector<std::string> known_model_types();

// One function per family file.
OpenModelFamily gpt2_family();
OpenModelFamily gpt_neox_family();
OpenModelFamily llama_family();
OpenModelFamily mistral_family();
OpenModelFamily qwen2_family();
OpenModelFamily qwen3_family();
OpenModelFamily opt_family();

}  // namespace sinklab
