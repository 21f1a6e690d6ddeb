#pragma once
// One architecture family of open checkpoints (GPT-2, GPT-NeoX, Llama, ...): how its config.json becomes
// a sinklab model config and how its tensors map onto that model's parameters. Each family lives in its
// own file and is listed once in open_model_registry.cpp; docs/extending.md shows how to add one.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config_loading/run_config.h"
#include "layers/transformer.h"
#include "models/open_models/hf_config.h"
#include "models/open_models/weight_mapping.h"

namespace sinklab {

// What a family reads off config.json (before any weight is touched).
struct OpenModelPlan {
  RunConfig config;     // the model section says everything; task and training keys mean nothing
  ModelShape shape;     // input = output = vocabulary, max_seq_len = the checkpoint's positions
  int64_t context = 0;  // the longest window the checkpoint was built for (max_position_embeddings)
  // Checkpoint tensor prefix the family detected, for messages ("model.", "transformer.", "").
  std::string prefix;
};

struct OpenModelFamily {
  std::string name;                      // "llama"
  std::vector<std::string> model_types;  // the config.json "model_type" values it reads
  std::string checkpoints;               // for people: "Llama-2, Llama-3.x, TinyLlama, SmolLM"
  // Reads config.json; throws OpenModelError naming a key it cannot build (HfConfig::fail) and, at the
  // end, HfConfig::refuse_unread for a key it does not know.
  std::function<OpenModelPlan(const HfConfig& config, const HfWeights& weights)> plan;
  // Copies every tensor into the model built from the plan.
  std::function<void(const OpenModelPlan& plan, WeightMapping& weights)> load;
};

// The model config every family starts from: token input, causal softmax attention scaled by
// 1/sqrt(head width), a residual stream with pre-norm blocks and a final norm, an output head.
RunConfig open_model_base_config(const std::string& name);

// Parts every family's plan and load share.
// vocab_size and the stack's sizes under the family's key names (width, blocks, heads).
void read_stack_sizes(const HfConfig& config, ModelConfig& model, const char* width_key, const char* layers_key,
                      const char* heads_key);
// Heads of width / heads each (head_dim: split); refuses heads that do not divide the width.
void split_heads(const HfConfig& config, ModelConfig& model, const char* width_key, const char* heads_key);
// The context (config[key]) as the plan's positions, its shape (vocabulary in and out) and task length.
void read_context(const HfConfig& config, const char* key, int64_t limit, OpenModelPlan& plan);
// The untied output head `tensor` [V, C], or with tied embeddings a stored copy, which must equal the embedding.
void load_output_head(const ModelConfig& model, const std::string& tensor, WeightMapping& weights);

}  // namespace sinklab
