#pragma once
// A Hugging Face model folder (config.json + model.safetensors, or the sharded form) as an ordinary
// sinklab Model: observers, hooks, ablations, sink statistics and the evaluation commands run on it as on
// a trained run's model. docs/open-models.md has the families, the memory per size and the commands.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "models/model.h"
#include "models/open_models/hf_config.h"
#include "models/open_models/hf_weights.h"
#include "models/open_models/open_model_family.h"

namespace sinklab {

struct OpenModelOptions {
  int threads = 1;  // RunConfig::threads of the model
  // The longest window the caller will run, for the memory check (0 = the weights only).
  int64_t window = 0;
  // Memory the load may use; nullopt = this machine's (available_memory()); the check is skipped when
  // that is unknown too.
  std::optional<double> available_bytes;
};

struct OpenModel {
  std::unique_ptr<Model> model;  // model->shape(): vocabulary in and out, max_seq_len = the context
  std::string family;            // registry name ("llama")
  std::string model_type;        // as config.json says ("llama", "qwen2", ...)
  int64_t context = 0;           // max_position_embeddings
  std::string weights;           // "model.safetensors" or "2 shard(s) (...)"
  uint64_t file_bytes = 0;       // tensor data on disk
  double parameter_bytes = 0;    // float32 parameters in memory
  double window_bytes = 0;       // the estimate for one window of options.window tokens
};

// The memory one forward pass over a window of T tokens holds (every layer's activations with attention
// materialized, as an observed pass keeps them, and the logits), in bytes.
double open_model_window_bytes(const ModelConfig& model, int64_t vocab, int64_t T);
// Parameters of the model a plan builds (without the store's alignment padding).
double open_model_parameter_count(const ModelConfig& model, const ModelShape& shape);

// Throws OpenModelError for a folder that is not a model sinklab builds (the message names the file and
// key or tensor), or whose parameters and window do not fit the memory available (the message says how
// much is needed, before anything is allocated); SafetensorsError / FileReadError for damaged files.
OpenModel load_open_model(const std::filesystem::path& folder, const OpenModelOptions& options = {});
// The same from a config and weights already opened (GPT-2's loader, tests).
OpenModel load_open_model(const HfConfig& config, const HfWeights& weights, const OpenModelOptions& options);

}  // namespace sinklab
