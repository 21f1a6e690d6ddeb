// Qwen2 / Qwen2.5: the Llama layout with biases on q, k and v (none on o or the MLP).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {

OpenModelFamily qwen2_family() { return llama_layout_family({"qwen2", true, false, false, false}, "Qwen2, Qwen2.5"); }

}  // namespace sinklab
