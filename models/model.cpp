#include "models/model.h"

#include "config_loading/config_writer.h"

namespace sinklab {

Model::Model(const RunConfig& config, const ModelShape& shape)
    : config_(config), shape_(shape), transformer_(std::make_unique<Transformer>(params_, config.model, shape)) {
  params_.finalize();
}

CheckpointHashes Model::checkpoint_hashes() const {
  return {model_shaping_hash(config_, shape_.input_dim, shape_.output_dim, shape_.max_seq_len), config_hash(config_)};
}

}  // namespace sinklab
