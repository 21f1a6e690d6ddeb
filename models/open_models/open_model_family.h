#pragma once
// One architecture family of open checkpoints (GPT-2, GPT-NeoX, Llama, ...): how its config.json becomes
// a sinklab model config and how its tensors map onto that model's parameters. Each family lives in its
// own file and is listed once in open_model_registry.cpp; docs/extending.md shows how to add one.
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
  OpenModelPlan (*plan)(const HfConfig& config, const HfWeights& weights);
  // Copies every tensor into the model built from the plan.
  void (*load)(const OpenModelPlan& plan, WeightMapping& weights);
};

// The model config every family starts from: token input, causal softmax attention scaled by
// 1/sqrt(head width), a residual stream with pre-norm blocks and a final norm, an output head.
RunConfig open_model_base_config(const std::string& name);

}  // namespace sinklab
