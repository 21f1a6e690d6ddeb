// Qwen3: the Llama layout with an RMSNorm of every query and key head before RoPE (q_norm, k_norm) and
// a head width of its own (head_dim, not hidden_size / heads).
#include "models/open_models/llama_layout.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

const LlamaVariant kQwen3{"qwen3", false, true, false, false};

OpenModelPlan plan(const HfConfig& config, const HfWeights& weights) {
  OpenModelPlan p = llama_layout_plan(config, weights, kQwen3);
  config.refuse_unread(kQwen3.family);
  return p;
}

}  // namespace

OpenModelFamily qwen3_family() {
  return {"qwen3", {"qwen3"}, "Qwen3 (dense)", plan, load_llama_layout};
}

}  // namespace sinklab
