#include "models/open_models/open_model_registry.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {

const std::vector<OpenModelFamily>& open_model_families() {
  static const std::vector<OpenModelFamily> families = [] {
    std::vector<OpenModelFamily> f = {
        gpt2_family(), gpt_neox_family(), llama_family(), mistral_family(), qwen2_family(), qwen3_family(), opt_family(),
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

}  // namespace sinklab
