#include "models/open_models/config_sizes.h"

namespace sinklab {

int config_size(const HfConfig& config, const std::string& key, int64_t fallback, int64_t limit) {
  const int64_t v = fallback >= 0 ? config.integer_or(key, fallback) : config.integer(key);
  if (v < 1 || v > limit)
    config.fail(key, std::to_string(v) + " is outside 1 .. " + std::to_string(limit) + " (the sizes sinklab builds)");
  return static_cast<int>(v);
}

int config_head_dim(const HfConfig& config, int hidden, int heads, const char* hidden_key, const char* heads_key) {
  if (config.has("head_dim")) return config_size(config, "head_dim", -1, 1 << 16);
  config.ignore({"head_dim"});
  if (hidden % heads != 0)
    config.fail(heads_key, std::to_string(heads) + " heads do not divide " + hidden_key + " " + std::to_string(hidden) +
                               " and there is no head_dim");
  return hidden / heads;
}

HeadDim head_dim_for(int d_model, int heads, int head_dim) {
  if (static_cast<int64_t>(heads) * head_dim == d_model) return {HeadDimMode::split, 0};
  return {HeadDimMode::fixed, head_dim};
}

}  // namespace sinklab
