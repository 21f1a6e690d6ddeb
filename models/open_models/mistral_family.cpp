// Mistral: the Llama layout with a sliding window (query i attends keys j with i - W < j <= i, the mask
// of Hugging Face's eager attention).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {

OpenModelFamily mistral_family() {
  return llama_layout_family({"mistral", false, false, true, false}, "Mistral-7B v0.1 .. v0.3");
}

}  // namespace sinklab
