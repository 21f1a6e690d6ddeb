#include "models/open_models/llama_layout.h"

#include <algorithm>

#include "models/open_models/config_sizes.h"
#include "models/open_models/rope_scaling_json.h"

namespace sinklab {

OpenModelPlan llama_layout_plan(const HfConfig& c, const HfWeights&, const LlamaVariant& variant) {
  OpenModelPlan plan;
  plan.config = open_model_base_config(variant.family);
  plan.prefix = "model.";
  ModelConfig& m = plan.config.model;
  read_stack_sizes(c, m, "hidden_size", "num_hidden_layers", "num_attention_heads");
  m.kv_heads = config_size(c, "num_key_value_heads", m.heads, 1024);
  if (m.heads % m.kv_heads != 0)
    c.fail("num_key_value_heads",
           std::to_string(m.kv_heads) + " does not divide num_attention_heads " + std::to_string(m.heads));
  if (m.kv_heads == m.heads) m.kv_heads = 0;
  const int head_dim = config_head_dim(c, m.d_model, m.heads, "hidden_size", "num_attention_heads");
  m.head_dim = head_dim_for(m.d_model, m.heads, head_dim);
  m.mlp_hidden = config_size(c, "intermediate_size", -1, 1 << 20);
  m.mlp_gated = true;
  const std::string act = c.string_or("hidden_act", "silu");
  if (act != "silu" && act != "swish")
    c.fail("hidden_act", "\"" + act + "\" is not computed for " + variant.family + " (silu only)");
  m.mlp_activation = Activation::silu;
  m.norm = NormKind::rms_norm;
  m.norm_eps = c.number_or("rms_norm_eps", 1e-6);
  if (!(m.norm_eps > 0 && m.norm_eps < 1)) c.fail("rms_norm_eps", "must be in (0, 1)");
  m.positional = Positional::rope;
  m.rope.pairing = RopePairing::halves;
  m.rope.theta = c.number_or("rope_theta", 10000);
  if (!(m.rope.theta > 1)) c.fail("rope_theta", "must be greater than 1");
  read_rope_scaling(c, m.rope);
  const bool attention_bias = c.boolean_or("attention_bias", false);
  m.attention.qkv_bias = attention_bias || variant.qkv_bias ? BiasSwitch::on : BiasSwitch::off;
  m.attention.out_bias = attention_bias ? BiasSwitch::on : BiasSwitch::off;
  m.mlp_bias = c.boolean_or("mlp_bias", false) ? BiasSwitch::on : BiasSwitch::off;
  m.attention.qk_norm = variant.qk_norm;
  m.tie_embeddings = c.boolean_or("tie_word_embeddings", variant.tie_default);
  // pretraining_tp > 1 splits Llama-2's matmuls into slices during pre-training: the same sums.
  c.ignore({"pretraining_tp"});
  if (variant.sliding_window) {
    const int64_t window = c.integer_or("sliding_window", 0);
    if (window < 0) c.fail("sliding_window", "must be >= 0 or null");
    m.attention.window = static_cast<int>(std::min<int64_t>(window, 1 << 30));
  } else if (c.has("use_sliding_window") || c.has("sliding_window")) {
    // Qwen2 / Qwen3 carry the keys; the window applies only with use_sliding_window.
    if (c.boolean_or("use_sliding_window", false))
      c.fail("use_sliding_window", "true is not built for " + variant.family + " (its per-layer windows)");
    c.ignore({"sliding_window", "max_window_layers"});
  }
  read_context(c, "max_position_embeddings", int64_t{1} << 30, plan);
  c.refuse_unread(variant.family);
  return plan;
}

void load_llama_layout(const OpenModelPlan& plan, WeightMapping& w) {
  const ModelConfig& m = plan.config.model;
  const int64_t V = m.vocab_size, C = m.d_model, H = m.heads, KV = resolved_kv_heads(m), D = resolved_head_dim(m),
                I = m.mlp_hidden;
  const std::string& p = plan.prefix;
  w.copy(p + "embed_tokens.weight", {V, C}, "embedding.weight");
  const auto linear = [&](const std::string& tensor, int64_t out, int64_t in, const std::string& parameter, bool bias) {
    w.copy(tensor + ".weight", {out, in}, parameter + ".weight");
    if (bias) w.copy(tensor + ".bias", {out}, parameter + ".bias");
  };
  const bool qkv_bias = resolved_bias(m.attention.qkv_bias, m.bias),
             out_bias = resolved_bias(m.attention.out_bias, m.bias);
  const bool mlp_bias = resolved_bias(m.mlp_bias, m.bias);
  for (int l = 0; l < m.layers; ++l) {
    const std::string h = p + "layers." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    w.copy(h + "input_layernorm.weight", {C}, b + "ln1.weight");
    linear(h + "self_attn.q_proj", H * D, C, b + "attn.w_q", qkv_bias);
    linear(h + "self_attn.k_proj", KV * D, C, b + "attn.w_k", qkv_bias);
    linear(h + "self_attn.v_proj", KV * D, C, b + "attn.w_v", qkv_bias);
    linear(h + "self_attn.o_proj", C, H * D, b + "attn.w_o", out_bias);
    if (m.attention.qk_norm) {
      w.copy(h + "self_attn.q_norm.weight", {D}, b + "attn.q_norm.weight");
      w.copy(h + "self_attn.k_norm.weight", {D}, b + "attn.k_norm.weight");
    }
    w.skip(h + "self_attn.rotary_emb.inv_freq");  // older files keep RoPE's frequencies: recomputed
    w.copy(h + "post_attention_layernorm.weight", {C}, b + "ln2.weight");
    linear(h + "mlp.gate_proj", I, C, b + "mlp.fc1", mlp_bias);
    linear(h + "mlp.up_proj", I, C, b + "mlp.up", mlp_bias);
    linear(h + "mlp.down_proj", C, I, b + "mlp.fc2", mlp_bias);
  }
  w.copy(p + "norm.weight", {C}, "final_norm.weight");
  load_output_head(m, "lm_head.weight", w);
}

OpenModelFamily llama_layout_family(const LlamaVariant& variant, const std::string& checkpoints) {
  return {variant.family,
          {variant.family},
          checkpoints,
          [variant](const HfConfig& config, const HfWeights& weights) {
            return llama_layout_plan(config, weights, variant);
          },
          load_llama_layout};
}

}  // namespace sinklab
