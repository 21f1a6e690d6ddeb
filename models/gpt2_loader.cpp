#include "models/gpt2_loader.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "core/io/file_read.h"
#include "models/open_models/open_model_loader.h"
#include "run_files/safetensors_file.h"

namespace sinklab {
namespace {

using Shape64 = std::vector<int64_t>;

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
    if (v > kLimit)
      fail(r.path(),
           "a size of " + std::to_string(v) + " is larger than sinklab builds (" + std::to_string(kLimit) + ")");
  return s;
}

// n_head and the sizes a config.json beside the weights gives, checked against the weights.
struct ConfigJson {
  bool present = false;
  int heads = 0;
  nlohmann::json keys;  // the keys the GPT-2 family reads beyond the sizes (activation, epsilon, ...)
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
  ConfigJson c;
  c.present = true;
  // Everything else the GPT-2 family reads and checks (models/open_models/gpt2_family.cpp), which refuses
  // what it does not compute, naming this file.
  for (const auto& [key, value] : j.items())
    if (key != "n_embd" && key != "n_layer" && key != "n_positions" && key != "vocab_size" && key != "n_inner" &&
        key != "n_head" && key != "model_type")
      c.keys[key] = value;
  const int64_t heads = integer("n_head", 0);
  if (heads < 0 || heads > s.width) fail_json("\"n_head\": " + std::to_string(heads) + " is not a head count");
  c.heads = static_cast<int>(heads);
  return c;
}

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

RunConfig gpt2_run_config(int d_model, int n_layer, int n_head, int mlp_hidden, int n_positions, int vocab,
                          int threads) {
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
                      " heads were asked for, but the config.json beside them says n_head " +
                      std::to_string(json.heads));
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
  // The GPT-2 family of the open-model loader builds the model: the sizes read off the weights, the
  // heads as decided above, and the other keys of a config.json beside the file.
  nlohmann::json config = json.keys.is_object() ? json.keys : nlohmann::json::object();
  config["model_type"] = "gpt2";
  config["n_embd"] = out.d_model;
  config["n_layer"] = out.n_layer;
  config["n_head"] = out.n_head;
  config["n_positions"] = out.n_positions;
  config["vocab_size"] = out.vocab;
  config["n_inner"] = out.mlp_hidden;
  const std::filesystem::path config_path = path.parent_path() / "config.json";
  const HfConfig hf_config(json.present ? config_path : path, config.dump());
  OpenModelOptions open_options;
  open_options.threads = options.threads;
  out.model = load_open_model(hf_config, HfWeights::single_file(path), open_options).model;
  return out;
}

}  // namespace sinklab
