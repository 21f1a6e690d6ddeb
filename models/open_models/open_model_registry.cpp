#include "models/open_models/open_model_registry.h"

#include <algorithm>
#include <stdexcept>

#include "models/open_models/config_sizes.h"

namespace sinklab {

const std::vector<OpenModelFamily>& open_model_families() {
  static const std::vector<OpenModelFamily> families = [] {
    std::vector<OpenModelFamily> f = {
        gpt2_family(),  gpt_neox_family(), llama_family(), mistral_family(),
        qwen2_family(), qwen3_family(),    opt_family(),
    };
    std::vector<std::string> seen;
    for (const OpenModelFamily& family : f)
      for (const std::string& type : family.model_types) {
        if (std::find(seen.begin(), seen.end(), type) != seen.end())
          throw std::logic_error("open model families: model_type " + type + " registered twice");
        seen.push_back(type);
      }
    return f;
  }();
  return families;
}

const OpenModelFamily* find_open_model_family(const std::string& model_type) {
  for (const OpenModelFamily& family : open_model_families())
    if (std::find(family.model_types.begin(), family.model_types.end(), model_type) != family.model_types.end())
      return &family;
  return nullptr;
}

std::vector<std::string> known_model_types() {
  std::vector<std::string> out;
  for (const OpenModelFamily& family : open_model_families())
    out.insert(out.end(), family.model_types.begin(), family.model_types.end());
  std::sort(out.begin(), out.end());
  return out;
}

RunConfig open_model_base_config(const std::string& name) {
  RunConfig c;
  c.name = name;
  ModelConfig& m = c.model;
  m.residual = true;
  m.input = InputKind::tokens;
  m.output_head = true;
  m.attention.scale = ScaleKind::inv_sqrt_head_dim;
  m.attention.normalizer.name = "softmax";
  return c;
}

void read_stack_sizes(const HfConfig& c, ModelConfig& m, const char* width_key, const char* layers_key,
                      const char* heads_key) {
  m.vocab_size = config_size(c, "vocab_size");
  m.d_model = config_size(c, width_key, -1, 1 << 16);
  m.layers = config_size(c, layers_key, -1, 1024);
  m.heads = config_size(c, heads_key, -1, 1024);
}

void split_heads(const HfConfig& c, ModelConfig& m, const char* width_key, const char* heads_key) {
  if (m.d_model % m.heads != 0)
    c.fail(heads_key, std::to_string(m.heads) + " heads do not divide " + width_key + " " + std::to_string(m.d_model));
  m.head_dim = {HeadDimMode::split, 0};
}

void read_context(const HfConfig& c, const char* key, int64_t limit, OpenModelPlan& plan) {
  const int64_t positions = config_size(c, key, -1, limit);
  const int vocab = plan.config.model.vocab_size;
  plan.context = positions;
  plan.shape = ModelShape{vocab, vocab, static_cast<int>(positions)};
  plan.config.task.seq_len = static_cast<int>(std::min<int64_t>(positions, 65536));
}

void load_output_head(const ModelConfig& m, const std::string& tensor, WeightMapping& w) {
  const TensorShape shape{m.vocab_size, m.d_model};
  if (!m.tie_embeddings) w.copy(tensor, shape, "output_head.weight");
  else if (w.has(tensor))
    w.check_equal_to_parameter(w.read(tensor, shape), "embedding.weight", "tie_word_embeddings is true");
}

}  // namespace sinklab
