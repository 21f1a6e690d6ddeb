#include "models/open_models/open_model_loader.h"

#include "config_loading/memory_estimate.h"
#include "config_loading/closest_match.h"
#include "models/open_models/open_model_registry.h"

namespace sinklab {

double open_model_parameter_count(const ModelConfig& m, const ModelShape& shape) {
  const double C = m.d_model, H = m.heads, KV = resolved_kv_heads(m), D = resolved_head_dim(m), I = m.mlp_hidden;
  const double V = m.vocab_size;
  const double qkv_b = resolved_bias(m.attention.qkv_bias, m.bias), out_b = resolved_bias(m.attention.out_bias, m.bias);
  const double mlp_b = resolved_bias(m.mlp_bias, m.bias), gated = m.mlp_gated ? 1 : 0;
  const double norm = m.norm == NormKind::layer_norm ? 2 * C : m.norm == NormKind::rms_norm ? C : 0;
  double layer = C * H * D + 2 * C * KV * D + H * D * C + qkv_b * (H * D + 2 * KV * D) + out_b * C;
  if (m.attention.qk_norm) layer += 2 * D;
  layer += 2 * norm + (2 + gated) * C * I + mlp_b * ((1 + gated) * I + C);
  double total = m.layers * layer + V * C + norm;
  if (m.positional == Positional::learned) total += (shape.max_seq_len + m.position_offset) * C;
  if (!m.tie_embeddings) total += V * C + resolved_bias(m.output_head_bias, m.bias) * V;
  return total;
}

double open_model_window_bytes(const ModelConfig& m, int64_t vocab, int64_t T) {
  if (T <= 0) return 0;
  const double C = m.d_model, H = m.heads, D = resolved_head_dim(m), I = m.mlp_hidden, t = static_cast<double>(T);
  // Per layer: q, k, v, the rotated q and k, scores and weights [H, T, T], the heads' outputs, W_O, two
  // norms, residual adds, and the MLP's hidden activations (gate, up, their product).
  const double layer = 2 * H * t * t + t * (6 * H * D + 8 * C + (m.mlp_gated ? 5 : 2) * I);
  return 4 * (m.layers * layer + 2 * t * static_cast<double>(vocab));
}

namespace {

// The family config.json's model_type names, checked before any weight file is opened.
const OpenModelFamily& family_of(const HfConfig& config) {
  const std::string type = config.model_type();
  if (type.empty()) config.fail("model_type", "missing; sinklab picks the architecture from it");
  const OpenModelFamily* family = find_open_model_family(type);
  if (!family) {
    std::string message =
        "\"" + type + "\" is not a family sinklab builds; it builds: " + join_names(known_model_types());
    if (const auto guess = closest_match(type, known_model_types())) message += "; did you mean '" + *guess + "'?";
    config.fail("model_type", message);
  }
  return *family;
}

}  // namespace

OpenModel load_open_model(const HfConfig& config, const HfWeights& weights, const OpenModelOptions& options) {
  const OpenModelFamily* family = &family_of(config);
  const std::string type = config.model_type();
  config.ignore(hf_config_bookkeeping_keys());
  OpenModelPlan plan = family->plan(config, weights);
  plan.config.threads = options.threads;

  OpenModel out;
  out.family = family->name;
  out.model_type = type;
  out.context = plan.context;
  out.weights = weights.description();
  out.file_bytes = weights.bytes_on_disk();
  out.parameter_bytes = 4 * open_model_parameter_count(plan.config.model, plan.shape);
  out.window_bytes = open_model_window_bytes(plan.config.model, plan.shape.output_dim, options.window);
  // Checked before the parameters are allocated: say what the model needs before it needs it.
  const std::optional<double> available = options.available_bytes ? options.available_bytes : available_memory();
  const double needed = out.parameter_bytes + out.window_bytes;
  if (available && needed > *available)
    throw OpenModelError("model folder " + config.path().parent_path().string() + ": a " + family->name + " model of " +
                         format_bytes(out.parameter_bytes) + " of float32 parameters" +
                         (options.window > 0 ? " plus " + format_bytes(out.window_bytes) + " for one window of " +
                                                   std::to_string(options.window) + " tokens"
                                             : std::string()) +
                         " needs about " + format_bytes(needed) + ", but " + format_bytes(*available) +
                         " is available; use a smaller model or a shorter window");
  out.model = std::make_unique<Model>(plan.config, plan.shape);
  WeightMapping mapping(weights, *out.model);
  family->load(plan, mapping);
  mapping.finish(family->name);
  return out;
}

OpenModel load_open_model(const std::filesystem::path& folder, const OpenModelOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw OpenModelError("model folder " + folder.string() + ": not a directory (give the folder that holds "
                         "config.json and the safetensors weights)");
  const HfConfig config(folder / "config.json");
  (void)family_of(config);
  const HfWeights weights(folder);
  return load_open_model(config, weights, options);
}

}  // namespace sinklab
