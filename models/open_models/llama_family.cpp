// Llama (Llama-2, Llama-3.x with its rope_scaling, TinyLlama, SmolLM): models/open_models/llama_layout.h.
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {

OpenModelFamily llama_family() {
  return llama_layout_family({"llama", false, false, false, false}, "Llama-2, Llama-3.x, TinyLlama, SmolLM");
}

}  // namespace sinklab
