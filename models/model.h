#pragma once
// A model on its own: the config it was built from, its shape, its parameters and the network, with
// no optimizer and no task. models/model_loader.h builds one fresh or from a checkpoint; the trainer
// (train/trainer.h) trains one. docs/models.md shows how to use it.
#include <memory>

#include "config_loading/run_config.h"
#include "core/parameter_store.h"
#include "layers/transformer.h"
#include "run_files/checkpoint_file.h"

namespace sinklab {

class Model {
 public:
  // Declares the network's parameters and finalizes the store; every value is 0 until the model is
  // initialized (build_model) or loaded (load_weights). Throws std::invalid_argument for a config the
  // network cannot be built from (layers/transformer.h).
  Model(const RunConfig& config, const ModelShape& shape);
  // The network refers to this object's parameter store, so a Model stays where it was built.
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const RunConfig& config() const { return config_; }
  const ModelShape& shape() const { return shape_; }
  ParameterStore& parameters() { return params_; }
  const ParameterStore& parameters() const { return params_; }
  Transformer& transformer() { return *transformer_; }
  const Transformer& transformer() const { return *transformer_; }

  // What a checkpoint of this model records (config_loading/config_writer.h): the model-shaping hash of its
  // config and shape, and the hash of the whole config.
  CheckpointHashes checkpoint_hashes() const;

 private:
  RunConfig config_;
  ModelShape shape_;
  ParameterStore params_;
  std::unique_ptr<Transformer> transformer_;  // declares into params_
};

}  // namespace sinklab
