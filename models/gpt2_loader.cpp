#include "models/gpt2_loader.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "core/io/file_read.h"
#include "run_files/safetensors_file.h"

namespace sinklab {
namespace {

using Shape64 = std::vector<int64_t>;

std::string shape_text(const Shape64& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& why) {
  throw SafetensorsError("GPT-2 weights " + file.string() + ": " + why);
}

// The sizes, from the shapes in the header (no data read yet).
struct Sizes {
  std::string prefix;  // "transformer." (GPT2LMHeadModel) or "" (GPT2Model)
  int64_t vocab = 0, width = 0, positions = 0, layers = 0, hidden = 0;
};

const SafetensorsEntry& entry(const SafetensorsReader& r, const std::string& name) {
  const SafetensorsEntry* e = r.find(name);
  if (!e) fail(r.path(), "has no tensor " + name);
  return *e;
}

Shape64 matrix_shape(const SafetensorsReader& r, const std::string& name) {
  const SafetensorsEntry& e = entry(r, name);
  if (e.shape.size() != 2 || e.shape[0] < 1 || e.shape[1] < 1)
    fail(r.path(), "tensor " + name + " has shape " + shape_text(e.shape) + ", expected a non-empty matrix");
  return e.shape;
}

Sizes read_sizes(const SafetensorsReader& r) {
  Sizes s;
  if (r.find("transformer.wte.weight")) {
    s.prefix = "transformer.";
  } else if (!r.find("wte.weight")) {
    fail(r.path(), "has neither wte.weight nor transformer.wte.weight (the token embedding): not GPT-2 weights in "
                   "the Hugging Face layout");
  }
  const Shape64 wte = matrix_shape(r, s.prefix + "wte.weight"), wpe = matrix_shape(r, s.prefix + "wpe.weight");
  s.vocab = wte[0];
  s.width = wte[1];
  s.positions = wpe[0];
  if (wpe[1] != s.width)
    fail(r.path(), "tensor " + s.prefix + "wpe.weight has shape " + shape_text(wpe) + ", expected [positions, " +
                       std::to_string(s.width) + "] (the width of wte.weight)");
  while (r.find(s.prefix + "h." + std::to_string(s.layers) + ".ln_1.weight")) ++s.layers;
  if (s.layers == 0) fail(r.path(), "has no tensor " + s.prefix + "h.0.ln_1.weight: no transformer blocks");
  const std::string fc = s.prefix + "h.0.mlp.c_fc.weight";
  const Shape64 c_fc = matrix_shape(r, fc);
  if (c_fc[0] != s.width)
    fail(r.path(), "tensor " + fc + " has shape " + shape_text(c_fc) + ", expected [" + std::to_string(s.width) +
                       ", hidden] (Conv1D: [in, out])");
  s.hidden = c_fc[1];
  constexpr int64_t kLimit = 1 << 24;  // the sizes must fit the model config's int fields and limits
  for (const int64_t v : {s.vocab, s.width, s.positions, s.hidden})
    if (v > kLimit) fail(r.path(), "a size of " + std::to_string(v) + " is larger than sinklab builds (" + std::to_string(kLimit) + ")");
  return s;
}

// n_head and the sizes a config.json beside the weights gives, checked against the weights.
struct ConfigJson {
  bool present = false;
  int heads = 0;
};

ConfigJson read_config_json(const std::filesystem::path& weights, const Sizes& s) {
  const std::filesystem::path path = weights.parent_path() / "config.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  const auto fail_json = [&](const std::string& why) -> void {
    throw Gpt2Error("GPT-2 config " + path.string() + ": " + why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_regular_file(path, 1 << 20, "GPT-2 config"));
  } catch (const nlohmann::json::exception& e) {
    fail_json(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail_json("not a JSON object");
  const auto integer = [&](const char* key, int64_t fallback) -> int64_t {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    if (!j[key].is_number_integer()) fail_json(std::string("\"") + key + "\" is not an integer");
    return j[key].get<int64_t>();
  };
  const auto same = [&](const char* key, int64_t expected, const char* what) {
    const int64_t v = integer(key, expected);
    if (v != expected)
      fail_json(std::string("\"") + key + "\": " + std::to_string(v) + " contradicts the weights (" + what + " " +
                std::to_string(expected) + ")");
  };
  same("n_embd", s.width, "width");
  same("n_layer", s.layers, "blocks");
  same("n_positions", s.positions, "positions");
  same("vocab_size", s.vocab, "vocabulary");
  same("n_inner", s.hidden, "MLP width");
  // What sinklab's GPT-2 computes; a config that asks for something else is refused, not ignored.
  if (j.contains("activation_function") && j["activation_function"] != "gelu_new" &&
      j["activation_function"] != "gelu_pytorch_tanh")
    fail_json("activation_function " + j["activation_function"].dump() +
              " is not GPT-2's tanh GELU (gelu_new), the only one this loader builds");
  if (j.contains("layer_norm_epsilon") &&
      (!j["layer_norm_epsilon"].is_number() || std::abs(j["layer_norm_epsilon"].get<double>() - 1e-5) > 1e-12))
    fail_json("layer_norm_epsilon " + j["layer_norm_epsilon"].dump() + " is not GPT-2's 1e-5, the only one sinklab's LayerNorm uses");
  for (const char* key : {"scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"})
    if (j.contains(key) && j[key] == true) fail_json(std::string("\"") + key + "\": true is not supported");
  if (j.contains("scale_attn_weights") && j["scale_attn_weights"] == false)
    fail_json("\"scale_attn_weights\": false is not supported (GPT-2 scales scores by 1/sqrt(head width))");
  ConfigJson c;
  c.present = true;
  const int64_t heads = integer("n_head", 0);
  if (heads < 0 || heads > s.width) fail_json("\"n_head\": " + std::to_string(heads) + " is not a head count");
  c.heads = static_cast<int>(heads);
  return c;
}

// Copies tensors into the model's parameters; every parameter must be written exactly once.
class ParameterWriter {
 public:
  ParameterWriter(const SafetensorsReader& reader, Model& model) : reader_(reader), model_(model) {}

  NamedTensor read(const std::string& name, const Shape64& shape, const std::string& layout = "") {
    (void)entry(reader_, name);
    NamedTensor t = reader_.read(name);
    if (t.shape != shape)
      fail(reader_.path(), "tensor " + name + " has shape " + shape_text(t.shape) + ", expected " + shape_text(shape) + layout);
    used_.insert(name);
    return t;
  }
  // A tensor stored as the parameter stores it (embeddings, LayerNorm, biases).
  void copy(const std::string& name, const Shape64& shape, const std::string& parameter) {
    const NamedTensor t = read(name, shape);
    write(parameter, t.values.data(), 0, static_cast<int64_t>(t.values.size()));
  }
  // Columns [col, col + n) of a Conv1D weight W [in, out], transposed into a Linear weight [n, in].
  void transpose_columns(const NamedTensor& w, int64_t col, int64_t n, const std::string& parameter) {
    const int64_t in = w.shape[0], out = w.shape[1];
    std::vector<float> t(static_cast<size_t>(n * in));
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < in; ++c) t[static_cast<size_t>(r * in + c)] = w.values[static_cast<size_t>(c * out + col + r)];
    write(parameter, t.data(), 0, n * in);
  }
  // Entries [begin, begin + n) of a bias.
  void slice(const NamedTensor& b, int64_t begin, int64_t n, const std::string& parameter) {
    write(parameter, b.values.data(), begin, n);
  }
  void mark_used(const std::string& name) { used_.insert(name); }
  bool used(const std::string& name) const { return used_.count(name) != 0; }

  // Internal consistency: the mapping below covers the model built from the same sizes.
  void check_complete() const {
    for (const ParameterInfo& p : model_.parameters().parameters())
      if (!written_.count(p.name)) throw std::logic_error("load_gpt2: parameter " + p.name + " was not written");
  }

 private:
  void write(const std::string& parameter, const float* values, int64_t begin, int64_t n) {
    Tensor dst = model_.parameters().tensor(parameter);
    if (dst.numel() != n || !written_.insert(parameter).second)
      throw std::logic_error("load_gpt2: parameter " + parameter + " written twice or with the wrong size");
    std::copy(values + begin, values + begin + n, dst.data());
  }

  const SafetensorsReader& reader_;
  Model& model_;
  std::set<std::string> used_, written_;
};

}  // namespace

int gpt2_heads_for_width(int d_model) {
  switch (d_model) {
    case 768: return 12;    // gpt2 (124M)
    case 1024: return 16;   // gpt2-medium (355M)
    case 1280: return 20;   // gpt2-large (774M)
    case 1600: return 25;   // gpt2-xl (1.5B)
    default: return 0;
  }
}

RunConfig gpt2_run_config(int d_model, int n_layer, int n_head, int mlp_hidden, int n_positions, int vocab, int threads) {
  RunConfig c;
  c.name = "gpt2";
  c.threads = threads;
  ModelConfig& m = c.model;
  m.d_model = d_model;
  m.layers = n_layer;
  m.heads = n_head;
  m.head_dim = {HeadDimMode::split, 0};
  m.residual = true;
  m.norm = NormKind::layer_norm;
  m.mlp_hidden = mlp_hidden;
  m.mlp_activation = Activation::gelu_tanh;
  m.bias = true;
  m.positional = Positional::learned;
  m.input = InputKind::tokens;
  m.vocab_size = vocab;
  m.output_head = true;
  m.tie_embeddings = true;
  m.attention.scale = ScaleKind::inv_sqrt_head_dim;
  m.attention.normalizer.name = "softmax";
  c.task.seq_len = n_positions;
  return c;
}

Gpt2Model load_gpt2(const std::filesystem::path& path, const Gpt2Options& options) {
  const SafetensorsReader reader(path);
  const Sizes s = read_sizes(reader);
  const ConfigJson json = read_config_json(path, s);

  Gpt2Model out;
  if (options.heads > 0) {
    if (json.present && json.heads > 0 && json.heads != options.heads)
      throw Gpt2Error("GPT-2 weights " + path.string() + ": " + std::to_string(options.heads) +
                      " heads were asked for, but the config.json beside them says n_head " + std::to_string(json.heads));
    out.n_head = options.heads;
    out.heads_from = "the heads option";
  } else if (json.heads > 0) {
    out.n_head = json.heads;
    out.heads_from = "config.json";
  } else if (const int h = gpt2_heads_for_width(static_cast<int>(s.width)); h > 0) {
    out.n_head = h;
    out.heads_from = "the width";
  } else {
    throw Gpt2Error("GPT-2 weights " + path.string() + ": cannot tell the number of attention heads: width " +
                    std::to_string(s.width) + " is none of GPT-2's (768, 1024, 1280, 1600) and there is no config.json "
                    "with n_head beside the file; pass --heads");
  }
  if (s.width % out.n_head != 0)
    throw Gpt2Error("GPT-2 weights " + path.string() + ": " + std::to_string(out.n_head) + " heads (from " +
                    out.heads_from + ") do not divide the width " + std::to_string(s.width));

  out.n_layer = static_cast<int>(s.layers);
  out.n_positions = static_cast<int>(s.positions);
  out.vocab = static_cast<int>(s.vocab);
  out.d_model = static_cast<int>(s.width);
  out.mlp_hidden = static_cast<int>(s.hidden);
  const RunConfig config = gpt2_run_config(out.d_model, out.n_layer, out.n_head, out.mlp_hidden, out.n_positions,
                                           out.vocab, options.threads);
  out.model = std::make_unique<Model>(config, ModelShape{out.vocab, out.vocab, out.n_positions});

  const int64_t C = s.width, F = s.hidden;
  const std::string& p = s.prefix;
  const std::string conv = " (Conv1D: [in, out])";
  ParameterWriter w(reader, *out.model);
  w.copy(p + "wte.weight", {s.vocab, C}, "embedding.weight");
  w.copy(p + "wpe.weight", {s.positions, C}, "pos_embedding.weight");
  for (int64_t l = 0; l < s.layers; ++l) {
    const std::string h = p + "h." + std::to_string(l) + ".", b = "blocks." + std::to_string(l) + ".";
    w.copy(h + "ln_1.weight", {C}, b + "ln1.weight");
    w.copy(h + "ln_1.bias", {C}, b + "ln1.bias");
    const NamedTensor qkv = w.read(h + "attn.c_attn.weight", {C, 3 * C}, conv);
    const NamedTensor qkv_bias = w.read(h + "attn.c_attn.bias", {3 * C});
    const char* names[3] = {"w_q", "w_k", "w_v"};
    for (int64_t i = 0; i < 3; ++i) {
      w.transpose_columns(qkv, i * C, C, b + "attn." + names[i] + ".weight");
      w.slice(qkv_bias, i * C, C, b + "attn." + names[i] + ".bias");
    }
    w.transpose_columns(w.read(h + "attn.c_proj.weight", {C, C}, conv), 0, C, b + "attn.w_o.weight");
    w.copy(h + "attn.c_proj.bias", {C}, b + "attn.w_o.bias");
    w.copy(h + "ln_2.weight", {C}, b + "ln2.weight");
    w.copy(h + "ln_2.bias", {C}, b + "ln2.bias");
    w.transpose_columns(w.read(h + "mlp.c_fc.weight", {C, F}, conv), 0, F, b + "mlp.fc1.weight");
    w.copy(h + "mlp.c_fc.bias", {F}, b + "mlp.fc1.bias");
    w.transpose_columns(w.read(h + "mlp.c_proj.weight", {F, C}, conv), 0, C, b + "mlp.fc2.weight");
    w.copy(h + "mlp.c_proj.bias", {C}, b + "mlp.fc2.bias");
    // The causal mask buffers of older transformers versions: sinklab masks by itself.
    for (const char* buffer : {"attn.bias", "attn.masked_bias"})
      if (reader.find(h + buffer)) w.mark_used(h + buffer);
  }
  w.copy(p + "ln_f.weight", {C}, "final_norm.weight");
  w.copy(p + "ln_f.bias", {C}, "final_norm.bias");
  w.check_complete();

  // GPT-2 ties its output head to wte; a file that stores lm_head.weight must store the same matrix.
  if (reader.find("lm_head.weight")) {
    const NamedTensor head = w.read("lm_head.weight", {s.vocab, C});
    const Tensor wte = out.model->parameters().tensor("embedding.weight");
    if (!std::equal(head.values.begin(), head.values.end(), wte.data()))
      fail(path, "tensor lm_head.weight differs from wte.weight: an untied output head is not GPT-2 and is not supported");
  }
  for (const SafetensorsEntry& e : reader.entries())
    if (!w.used(e.name))
      fail(path, "tensor " + e.name + " is not part of GPT-2 with " + std::to_string(s.layers) +
                     " blocks (Hugging Face layout" + (p.empty() ? "" : ", prefix " + p) + "): another architecture?");
  return out;
}

}  // namespace sinklab
