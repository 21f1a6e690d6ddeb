#pragma once
// Building a model without an optimizer or a training task: fresh from a config (exactly the trainer's
// initialization), or with the weights of a checkpoint (a run folder, or a checkpoint file plus its
// config). Errors: ConfigError (config_loading/config_error.h) for the config, CheckpointError
// (run_files/checkpoint_file.h) for the checkpoint, std::invalid_argument or TaskError (data/task.h) for a
// config the network or the task cannot be built from.
#include <cstdint>
#include <filesystem>
#include <memory>

#include "config_loading/run_config.h"
#include "core/rng.h"
#include "models/model.h"

namespace sinklab {

// A run's seed splits into independent streams, so that model init and data never share draws.
inline constexpr uint64_t kInitStream = 0;  // initializes the model (build_model)
inline constexpr uint64_t kDataStream = 1;  // draws the training batches (train/trainer.cpp)
Rng seed_stream(uint64_t seed, uint64_t which);

// The widths and sequence length the config's task gives the model.
ModelShape model_shape_of(const RunConfig& config);

// A freshly initialized model: stream kInitStream of config.seed, bit-identical to a new Trainer's;
// with model.init_from, then every parameter from that file (load_initial_weights, models/weight_files.h).
std::unique_ptr<Model> build_model(const RunConfig& config);
// The same with the shape already known (the caller has built the task: no second task build).
std::unique_ptr<Model> build_model(const RunConfig& config, const ModelShape& shape);

// Replaces the model's parameters with a checkpoint's. Needs only the model-shaping hash to match
// (keys such as train.max_steps, name, threads or analysis.* may differ), then every parameter by name
// and shape; optimizer moments and the training state are ignored.
void load_weights(Model& model, const std::filesystem::path& checkpoint);

// The model of a run: `run` is a run folder (its config.yaml and checkpoint.bin) or a checkpoint file
// inside one (that file and the folder's config.yaml).
std::unique_ptr<Model> load_model(const std::filesystem::path& run);
// The model of `config` with the weights of `checkpoint`.
std::unique_ptr<Model> load_model(const std::filesystem::path& checkpoint, const RunConfig& config);

}  // namespace sinklab
