// GPT-2 (124M .. 1.5B, distilgpt2): LayerNorm pre-norm blocks, learned positions, tanh GELU, biases
// everywhere, the output head tied to wte. Hugging Face stores the projections as Conv1D, y = x W + b
// with W [in, out]; sinklab's Linear is PyTorch's [out, in]. c_attn's W [C, 3C] holds q | k | v side by
// side: each third, transposed, becomes w_q, w_k, w_v (head h = rows h*C/H .. of each, as in both).
//   [transformer.]wte.weight [V, C], wpe.weight [P, C]; h.{l}.ln_1, .attn.c_attn, .attn.c_proj, .ln_2,
//   .mlp.c_fc, .mlp.c_proj; ln_f; lm_head.weight (optional, = wte)
#include "models/open_models/config_sizes.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {
namespace {

OpenModelPlan plan(const HfConfig& c, const HfWeights& weights) {
  OpenModelPlan plan;
  plan.config = open_model_base_config("gpt2");
  plan.prefix = weights.find("transformer.wte.weight") ? "transformer." : "";
  ModelConfig& m = plan.config.model;
  read_stack_sizes(c, m, "n_embd", "n_layer", "n_head");
  split_heads(c, m, "n_embd", "n_head");
  m.mlp_hidden = config_size(c, "n_inner", 4 * int64_t{m.d_model}, 1 << 20);
  const std::string act = c.string_or("activation_function", "gelu_new");
  if (act == "gelu_new" || act == "gelu_pytorch_tanh") m.mlp_activation = Activation::gelu_tanh;
  else if (act == "gelu") m.mlp_activation = Activation::gelu;
  else if (act == "relu") m.mlp_activation = Activation::relu;
  else c.fail("activation_function", "\"" + act + "\" is not computed (gelu_new, gelu_pytorch_tanh, gelu, relu)");
  m.norm = NormKind::layer_norm;
  m.norm_eps = c.number_or("layer_norm_epsilon", 1e-5);
  if (!(m.norm_eps > 0 && m.norm_eps < 1)) c.fail("layer_norm_epsilon", "must be in (0, 1)");
  if (!c.boolean_or("scale_attn_weights", true))
    c.fail("scale_attn_weights", "false is not built (GPT-2 scales scores by 1/sqrt(head width))");
  if (c.boolean_or("scale_attn_by_inverse_layer_idx", false))
    c.fail("scale_attn_by_inverse_layer_idx", "true is not built");
  // Computes the same product in float32 in another order: the same function.
  c.ignore({"reorder_and_upcast_attn", "n_ctx"});
  if (!c.boolean_or("tie_word_embeddings", true))
    c.fail("tie_word_embeddings", "false: GPT-2's output head is wte; an untied head is not GPT-2");
  m.bias = true;
  m.positional = Positional::learned;
  m.tie_embeddings = true;
  read_context(c, "n_positions", 1 << 20, plan);
  // Keys of the sequence-summary heads of GPT2DoubleHeadsModel: not part of the language model.
  c.ignore(
      {"summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout"});
  c.refuse_unread("gpt2");
  return plan;
}

// Columns [col, col + n) of a Conv1D weight W [in, out], transposed into a Linear weight [n, in].
void transposed_columns(WeightMapping& w, const NamedTensor& t, int64_t col, int64_t n, const std::string& parameter) {
  const int64_t in = t.shape[0], out = t.shape[1];
  std::vector<float> rows(static_cast<size_t>(n * in));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < in; ++c)
      rows[static_cast<size_t>(r * in + c)] = t.values[static_cast<size_t>(c * out + col + r)];
  w.write(parameter, rows.data(), 0, n * in);
}

void load(const OpenModelPlan& plan, WeightMapping& w) {
  const ModelConfig& m = plan.config.model;
  const int64_t V = m.vocab_size, C = m.d_model, F = m.mlp_hidden, P = plan.shape.max_seq_len;
  const std::string& p = plan.prefix;
  const std::string conv = " (Conv1D: [in, out])";
  w.copy(p + "wte.weight", {V, C}, "embedding.weight");
  w.copy(p + "wpe.weight", {P, C}, "pos_embedding.weight");
  for (int l = 0; l < m.layers; ++l) {
    const std::string h = p + "h." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    w.copy(h + "ln_1.weight", {C}, b + "ln1.weight");
    w.copy(h + "ln_1.bias", {C}, b + "ln1.bias");
    const NamedTensor qkv = w.read(h + "attn.c_attn.weight", {C, 3 * C}, conv);
    const char* names[3] = {"w_q", "w_k", "w_v"};
    for (int64_t i = 0; i < 3; ++i) {
      transposed_columns(w, qkv, i * C, C, b + "attn." + names[i] + ".weight");
      w.copy_rows(h + "attn.c_attn.bias", {3 * C}, i * C, C, b + "attn." + names[i] + ".bias", 0);
    }
    transposed_columns(w, w.read(h + "attn.c_proj.weight", {C, C}, conv), 0, C, b + "attn.w_o.weight");
    w.copy(h + "attn.c_proj.bias", {C}, b + "attn.w_o.bias");
    w.copy(h + "ln_2.weight", {C}, b + "ln2.weight");
    w.copy(h + "ln_2.bias", {C}, b + "ln2.bias");
    transposed_columns(w, w.read(h + "mlp.c_fc.weight", {C, F}, conv), 0, F, b + "mlp.fc1.weight");
    w.copy(h + "mlp.c_fc.bias", {F}, b + "mlp.fc1.bias");
    transposed_columns(w, w.read(h + "mlp.c_proj.weight", {F, C}, conv), 0, C, b + "mlp.fc2.weight");
    w.copy(h + "mlp.c_proj.bias", {C}, b + "mlp.fc2.bias");
    // The causal mask buffers of older transformers versions: sinklab masks by itself.
    for (const char* buffer : {"attn.bias", "attn.masked_bias"}) w.skip(h + buffer);
  }
  w.copy(p + "ln_f.weight", {C}, "final_norm.weight");
  w.copy(p + "ln_f.bias", {C}, "final_norm.bias");
  if (w.has("lm_head.weight"))
    w.check_equal_to_parameter(w.read("lm_head.weight", {V, C}), "embedding.weight",
                               "GPT-2 ties its output head to wte (an untied head is not GPT-2)");
}

}  // namespace

OpenModelFamily gpt2_family() {
  return {"gpt2", {"gpt2"}, "GPT-2 (124M, medium, large, xl), distilgpt2", plan, load};
}

}  // namespace sinklab
