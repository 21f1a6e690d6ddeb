// Llama (Llama-2, Llama-3.x with its rope_scaling, TinyLlama, SmolLM): models/open_models/llama_layout.h.
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

const LlamaVariant kLlama{"llama", false, false, false, false};

OpenModelPlan plan(const HfConfig& config, const HfWeights& weights) {
  OpenModelPlan p = llama_layout_plan(config, weights, kLlama);
  config.refuse_unread(kLlama.family);
  return p;
}

}  // namespace

OpenModelFamily llama_family() {
  return {"llama", {"llama"}, "Llama-2, Llama-3.x, TinyLlama, SmolLM", plan, load_llama_layout};
}

}  // namespace sinklab
