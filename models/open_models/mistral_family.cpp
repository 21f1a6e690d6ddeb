// Mistral: the Llama layout with a sliding window (query i attends keys j with i - W < j <= i, the mask
// of Hugging Face's eager attention).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

const LlamaVariant kMistral{"mistral", false, false, true, false};

OpenModelPlan plan(const HfConfig& config, const HfWeights& weights) {
  OpenModelPlan p = llama_layout_plan(config, weights, kMistral);
  config.refuse_unread(kMistral.family);
  return p;
}

}  // namespace

OpenModelFamily mistral_family() {
  return {"mistral", {"mistral"}, "Mistral-7B v0.1 .. v0.3", plan, load_llama_layout};
}

}  // namespace sinklab
