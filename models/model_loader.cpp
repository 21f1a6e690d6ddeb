#include "models/model_loader.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "models/weight_files.h"

namespace sinklab {

Rng seed_stream(uint64_t seed, uint64_t which) {
  Rng root(seed);
  for (uint64_t i = 0; i < which; ++i) root.next();
  return root.split();
}

ModelShape model_shape_of(const RunConfig& config) {
  const TaskShape task = task_shape_of(config.task, config.model.residual);
  // Long enough for the evaluation set too (task.eval_seq_len; learned positions refuse a longer one).
  return {task.input_dim, task.output_dim, std::max(task.seq_len, config.task.eval_seq_len)};
}

std::unique_ptr<Model> build_model(const RunConfig& config) { return build_model(config, model_shape_of(config)); }

std::unique_ptr<Model> build_model(const RunConfig& config, const ModelShape& shape) {
  auto model = std::make_unique<Model>(config, shape);
  Rng init = seed_stream(config.seed, kInitStream);
  model->transformer().initialize(init);
  // Drawn first all the same, so the init stream is consumed as in every other run.
  if (!config.model.init_from.empty()) load_initial_weights(*model, config.model.init_from);
  return model;
}

void load_weights(Model& model, const std::filesystem::path& checkpoint) {
  read_checkpoint_file(checkpoint, model.checkpoint_hashes(), CheckpointUse::weights, model.parameters());
}

std::unique_ptr<Model> load_model(const std::filesystem::path& checkpoint, const RunConfig& config) {
  // No initialization: load_weights replaces every parameter or fails.
  auto model = std::make_unique<Model>(config, model_shape_of(config));
  load_weights(*model, checkpoint);
  return model;
}

std::unique_ptr<Model> load_model(const std::filesystem::path& run) {
  std::error_code ec;
  if (!std::filesystem::exists(run, ec))
    throw std::invalid_argument(run.string() + ": no such run folder or checkpoint file");
  const bool folder = std::filesystem::is_directory(run);
  std::filesystem::path dir = folder ? run : run.parent_path();
  if (dir.empty()) dir = ".";
  // No memory check: the loader's estimate is for training (batches, activations), not for one model.
  const RunConfig config = load_run_config(dir / "config.yaml", {}, std::nullopt);
  return load_model(folder ? run / "checkpoint.bin" : run, config);
}

}  // namespace sinklab
