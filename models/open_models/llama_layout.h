#pragma once
// The Llama layout, shared by the families built on it (Llama, Mistral, Qwen2, Qwen3): RMSNorm pre-norm
// blocks, RoPE in the rotate_half form, grouped-query attention, a SwiGLU MLP, tied or untied output.
//   model.embed_tokens.weight [V, C]
//   model.layers.{l}.input_layernorm.weight [C]          -> blocks.{l}.ln1.weight
//   model.layers.{l}.self_attn.{q,k,v,o}_proj.weight     -> blocks.{l}.attn.w_{q,k,v,o}.weight (PyTorch
//                       layout [out, in] both; q [H*D, C], k and v [KV*D, C], o [C, H*D]); biases likewise
//   model.layers.{l}.self_attn.{q,k}_norm.weight [D]      -> blocks.{l}.attn.{q,k}_norm.weight (Qwen3)
//   model.layers.{l}.post_attention_layernorm.weight [C] -> blocks.{l}.ln2.weight
//   model.layers.{l}.mlp.{gate,up,down}_proj.weight      -> blocks.{l}.mlp.{fc1,up,fc2}.weight
//   model.norm.weight [C] -> final_norm.weight; lm_head.weight [V, C] -> output_head.weight (untied)
#include <string>

#include "models/open_models/open_model_family.h"

namespace sinklab {

struct LlamaVariant {
  std::string family;         // "llama", "mistral", ... for messages
  bool qkv_bias = false;      // q/k/v biases whatever attention_bias says (Qwen2)
  bool qk_norm = false;       // Qwen3
  bool sliding_window = false;  // the family reads sliding_window (Mistral)
  bool tie_default = false;   // tie_word_embeddings when config.json leaves it out
};

// Reads config.json (refusing the keys the variant does not read) and copies the tensors.
OpenModelPlan llama_layout_plan(const HfConfig& config, const HfWeights& weights, const LlamaVariant& variant);
void load_llama_layout(const OpenModelPlan& plan, WeightMapping& weights);
// The family of a variant: its name is its model_type.
OpenModelFamily llama_layout_family(const LlamaVariant& variant, const std::string& checkpoints);

}  // namespace sinklab
