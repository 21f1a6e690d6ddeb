// GPT-NeoX / Pythia: LayerNorm pre-norm blocks with a parallel residual (x + Attn(ln1 x) + MLP(ln2 x)),
// RoPE on the first rotary_pct of each head in the rotate_half form, exact GELU, an untied embed_out.
//   gpt_neox.embed_in.weight [V, C]
//   gpt_neox.layers.{l}.input_layernorm.{weight,bias}, .post_attention_layernorm.{weight,bias}
//   gpt_neox.layers.{l}.attention.query_key_value.{weight [3*H*D, C], bias [3*H*D]}: per head h, rows
//       h*3D .. h*3D+D are its query, the next D its key, the next D its value (the fused layout)
//   gpt_neox.layers.{l}.attention.dense, .mlp.dense_h_to_4h, .mlp.dense_4h_to_h (PyTorch Linear)
//   gpt_neox.final_layer_norm.{weight,bias}; embed_out.weight [V, C]
#include "models/open_models/config_sizes.h"
#include "models/open_models/open_model_registry.h"
#include "models/open_models/rope_scaling_json.h"

namespace sinklab {
namespace {

OpenModelPlan plan(const HfConfig& c, const HfWeights&) {
  OpenModelPlan plan;
  plan.config = open_model_base_config("gpt_neox");
  plan.prefix = "gpt_neox.";
  ModelConfig& m = plan.config.model;
  read_stack_sizes(c, m, "hidden_size", "num_hidden_layers", "num_attention_heads");
  split_heads(c, m, "hidden_size", "num_attention_heads");
  const int D = m.d_model / m.heads;
  m.mlp_hidden = config_size(c, "intermediate_size", -1, 1 << 20);
  const std::string act = c.string_or("hidden_act", "gelu");
  if (act == "gelu") m.mlp_activation = Activation::gelu;
  else if (act == "gelu_new" || act == "gelu_pytorch_tanh") m.mlp_activation = Activation::gelu_tanh;
  else if (act == "relu") m.mlp_activation = Activation::relu;
  else c.fail("hidden_act", "\"" + act + "\" is not computed (gelu, gelu_new, gelu_pytorch_tanh, relu)");
  m.norm = NormKind::layer_norm;
  m.norm_eps = c.number_or("layer_norm_eps", 1e-5);
  if (!(m.norm_eps > 0 && m.norm_eps < 1)) c.fail("layer_norm_eps", "must be in (0, 1)");
  m.parallel_residual = c.boolean_or("use_parallel_residual", true);
  m.bias = c.boolean_or("attention_bias", true);
  m.mlp_bias = BiasSwitch::on;  // NeoX's MLP always has biases
  m.output_head_bias = BiasSwitch::off;
  m.positional = Positional::rope;
  m.rope.pairing = RopePairing::halves;
  const double pct = c.number_or("rotary_pct", 1.0);
  if (!(pct > 0 && pct <= 1)) c.fail("rotary_pct", "must be in (0, 1]");
  const int rotated = static_cast<int>(D * pct);  // int(head_size * rotary_pct), as the reference truncates
  if (rotated < 2 || rotated % 2 != 0)
    c.fail("rotary_pct", "turns " + std::to_string(rotated) + " of " + std::to_string(D) +
                             " coordinates per head; RoPE needs an even number >= 2");
  m.rope.dims = rotated == D ? 0 : rotated;
  // Older configs name the base rotary_emb_base, newer ones rope_theta.
  const double base = c.number_or("rotary_emb_base", 10000);
  m.rope.theta = c.number_or("rope_theta", base);
  if (!(m.rope.theta > 1)) c.fail("rope_theta", "must be greater than 1");
  read_rope_scaling(c, m.rope);
  m.tie_embeddings = c.boolean_or("tie_word_embeddings", false);
  c.ignore({"rotary_emb_base", "classifier_dropout", "use_memory_efficient_attention"});
  read_context(c, "max_position_embeddings", int64_t{1} << 30, plan);
  c.refuse_unread("gpt_neox");
  return plan;
}

void load(const OpenModelPlan& plan, WeightMapping& w) {
  const ModelConfig& m = plan.config.model;
  const int64_t V = m.vocab_size, C = m.d_model, H = m.heads, D = C / H, F = m.mlp_hidden;
  const std::string& p = plan.prefix;
  const bool bias = m.bias;
  w.copy(p + "embed_in.weight", {V, C}, "embedding.weight");
  for (int l = 0; l < m.layers; ++l) {
    const std::string h = p + "layers." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    w.copy(h + "input_layernorm.weight", {C}, b + "ln1.weight");
    w.copy(h + "input_layernorm.bias", {C}, b + "ln1.bias");
    w.copy(h + "post_attention_layernorm.weight", {C}, b + "ln2.weight");
    w.copy(h + "post_attention_layernorm.bias", {C}, b + "ln2.bias");
    const char* parts[3] = {"w_q", "w_k", "w_v"};
    for (int64_t head = 0; head < H; ++head)
      for (int64_t i = 0; i < 3; ++i) {
        const int64_t row = head * 3 * D + i * D;
        const std::string param = b + "attn." + parts[i];
        w.copy_rows(h + "attention.query_key_value.weight", {3 * H * D, C}, row, D, param + ".weight", head * D);
        if (bias) w.copy_rows(h + "attention.query_key_value.bias", {3 * H * D}, row, D, param + ".bias", head * D);
      }
    w.copy(h + "attention.dense.weight", {C, C}, b + "attn.w_o.weight");
    if (bias) w.copy(h + "attention.dense.bias", {C}, b + "attn.w_o.bias");
    w.copy(h + "mlp.dense_h_to_4h.weight", {F, C}, b + "mlp.fc1.weight");
    w.copy(h + "mlp.dense_h_to_4h.bias", {F}, b + "mlp.fc1.bias");
    w.copy(h + "mlp.dense_4h_to_h.weight", {C, F}, b + "mlp.fc2.weight");
    w.copy(h + "mlp.dense_4h_to_h.bias", {C}, b + "mlp.fc2.bias");
    // Buffers older files carry: the causal mask and RoPE's frequencies, which sinklab recomputes.
    for (const char* buffer : {"attention.bias", "attention.masked_bias", "attention.rotary_emb.inv_freq"})
      w.skip(h + buffer);
  }
  w.copy(p + "final_layer_norm.weight", {C}, "final_norm.weight");
  w.copy(p + "final_layer_norm.bias", {C}, "final_norm.bias");
  load_output_head(m, "embed_out.weight", w);
}

}  // namespace

OpenModelFamily gpt_neox_family() {
  return {"gpt_neox", {"gpt_neox"}, "Pythia (70M .. 12B), GPT-NeoX-20B", plan, load};
}

}  // namespace sinklab
