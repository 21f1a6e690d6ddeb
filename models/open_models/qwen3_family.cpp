// Qwen3: the Llama layout with an RMSNorm of every query and key head before RoPE (q_norm, k_norm) and
// a head width of its own (head_dim, not hidden_size / heads).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {

OpenModelFamily qwen3_family() { return llama_layout_family({"qwen3", false, true, false, false}, "Qwen3 (dense)"); }

}  // namespace sinklab
