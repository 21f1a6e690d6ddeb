// OPT (facebook/opt-125m .. 66b): LayerNorm pre-norm blocks, learned positions read at row t + 2, ReLU
// MLP, biases everywhere, the output head tied to the embedding.
//   model.decoder.embed_tokens.weight [V, C], model.decoder.embed_positions.weight [P + 2, C]
//   model.decoder.layers.{l}.self_attn_layer_norm, .self_attn.{q,k,v,out}_proj, .final_layer_norm,
//   .fc1, .fc2 (PyTorch Linear); model.decoder.final_layer_norm; lm_head.weight (= embed_tokens)
// opt-350m (post-LN, a projection between a 512-wide embedding and the 1024-wide stream) is refused.
#include "models/open_models/config_sizes.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

constexpr int kPositionOffset = 2;  // OPT's learned positions start at row 2 (rows 0, 1: padding legacy)

OpenModelPlan plan(const HfConfig& c, const HfWeights& weights) {
  OpenModelPlan plan;
  plan.config = open_model_base_config("opt");
  plan.prefix = weights.find("model.decoder.embed_tokens.weight") ? "model.decoder." : "decoder.";
  ModelConfig& m = plan.config.model;
  read_stack_sizes(c, m, "hidden_size", "num_hidden_layers", "num_attention_heads");
  split_heads(c, m, "hidden_size", "num_attention_heads");
  m.mlp_hidden = config_size(c, "ffn_dim", -1, 1 << 20);
  const std::string act = c.string_or("activation_function", "relu");
  if (act == "relu") m.mlp_activation = Activation::relu;
  else if (act == "gelu") m.mlp_activation = Activation::gelu;
  else c.fail("activation_function", "\"" + act + "\" is not computed (relu, gelu)");
  if (!c.boolean_or("do_layer_norm_before", true))
    c.fail("do_layer_norm_before", "false (post-LN, opt-350m) is not built: sinklab's blocks are pre-norm");
  if (c.integer_or("word_embed_proj_dim", m.d_model) != m.d_model)
    c.fail("word_embed_proj_dim",
           "differs from hidden_size: the projections around the stream (opt-350m) are not built");
  if (!c.boolean_or("layer_norm_elementwise_affine", true))
    c.fail("layer_norm_elementwise_affine", "false is not built (LayerNorm without gain and bias)");
  if (c.boolean_or("_remove_final_layer_norm", false))
    c.fail("_remove_final_layer_norm", "true is not built");
  m.norm = NormKind::layer_norm;
  m.norm_eps = 1e-5;  // torch.nn.LayerNorm's default, which OPT uses
  m.bias = c.boolean_or("enable_bias", true);
  m.output_head_bias = BiasSwitch::off;
  m.positional = Positional::learned;
  m.position_offset = kPositionOffset;
  m.tie_embeddings = c.boolean_or("tie_word_embeddings", true);
  if (c.boolean_or("scale_embedding", false)) c.fail("scale_embedding", "true is not built");
  read_context(c, "max_position_embeddings", 1 << 20, plan);
  c.refuse_unread("opt");
  return plan;
}

void load(const OpenModelPlan& plan, WeightMapping& w) {
  const ModelConfig& m = plan.config.model;
  const int64_t V = m.vocab_size, C = m.d_model, F = m.mlp_hidden, P = plan.shape.max_seq_len;
  const std::string& p = plan.prefix;
  const bool bias = m.bias;
  const auto linear = [&](const std::string& tensor, int64_t out, int64_t in, const std::string& parameter) {
    w.copy(tensor + ".weight", {out, in}, parameter + ".weight");
    if (bias) w.copy(tensor + ".bias", {out}, parameter + ".bias");
  };
  w.copy(p + "embed_tokens.weight", {V, C}, "embedding.weight");
  w.copy(p + "embed_positions.weight", {P + kPositionOffset, C}, "pos_embedding.weight");
  for (int l = 0; l < m.layers; ++l) {
    const std::string h = p + "layers." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    w.copy(h + "self_attn_layer_norm.weight", {C}, b + "ln1.weight");
    w.copy(h + "self_attn_layer_norm.bias", {C}, b + "ln1.bias");
    linear(h + "self_attn.q_proj", C, C, b + "attn.w_q");
    linear(h + "self_attn.k_proj", C, C, b + "attn.w_k");
    linear(h + "self_attn.v_proj", C, C, b + "attn.w_v");
    linear(h + "self_attn.out_proj", C, C, b + "attn.w_o");
    w.copy(h + "final_layer_norm.weight", {C}, b + "ln2.weight");
    w.copy(h + "final_layer_norm.bias", {C}, b + "ln2.bias");
    linear(h + "fc1", F, C, b + "mlp.fc1");
    linear(h + "fc2", C, F, b + "mlp.fc2");
  }
  w.copy(p + "final_layer_norm.weight", {C}, "final_norm.weight");
  w.copy(p + "final_layer_norm.bias", {C}, "final_norm.bias");
  load_output_head(m, "lm_head.weight", w);
}

}  // namespace

OpenModelFamily opt_family() {
  return {"opt", {"opt"}, "OPT-125m, 1.3b, 2.7b, 6.7b, 13b (not 350m)", plan, load};
}

}  // namespace sinklab
