// Qwen2 / Qwen2.5: the Llama layout with biases on q, k and v (none on o or the MLP).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

const LlamaVariant kQwen2{"qwen2", true, false, false, false};

OpenModelPlan plan(const HfConfig& config, const HfWeights& weights) {
  OpenModelPlan p = llama_layout_plan(config, weights, kQwen2);
  config.refuse_unread(kQwen2.family);
  return p;
}

}  // namespace

OpenModelFamily qwen2_family() {
  return {"qwen2", {"qwen2"}, "Qwen2, Qwen2.5", plan, load_llama_layout};
}

}  // namespace sinklab
