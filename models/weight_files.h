#pragma once
// A model's weights in and out of files other programs read: `sinklab export` writes the parameters
// (names and shapes exactly as in checkpoint.bin) with the resolved config as safetensors or .npz, and
// `model.init_from` starts a model from such a safetensors file. docs/models.md shows both.
#include <filesystem>
#include <vector>

#include "models/model.h"
#include "run_files/named_tensor.h"

namespace sinklab {

enum class WeightFormat { safetensors, npz };

// Where an export keeps the resolved config: safetensors __metadata__ key / .npz text entry.
inline constexpr char kExportConfigKey[] = "sinklab_config";
inline constexpr char kExportConfigEntry[] = "config.yaml";

// The parameters in checkpoint order, named and shaped as checkpoint.bin stores them.
std::vector<NamedTensor> parameter_tensors(const Model& model);

// Writes parameter_tensors(model) and to_yaml(model.config()) atomically. Throws FileWriteError.
void export_weights(const Model& model, const std::filesystem::path& path, WeightFormat format);

// The first `samples` inputs of the config's fixed evaluation set ("input" [N, T, input_dim]), their
// targets ("target") and the model's outputs ("output" [N, T, output_dim]), computed with the run's
// thread count: what tools/check_export.py compares a PyTorch model with. Needs a task with vector
// inputs and an MSE target; throws std::invalid_argument otherwise or for samples outside
// 1 .. task.eval_samples.
std::vector<NamedTensor> evaluation_tensors(Model& model, int samples);
void export_evaluation(Model& model, int samples, const std::filesystem::path& path, WeightFormat format);

// model.init_from: replaces every parameter with the safetensors file's tensor of the same name and
// shape. The file must hold exactly the model's parameters: the first parameter it lacks, the first
// shape that differs, or else the first tensor the model has no parameter for, is one
// SafetensorsError ("model.init_from: safetensors file PATH: ..."); the model is only written once
// everything matched.
void load_initial_weights(Model& model, const std::filesystem::path& file);

}  // namespace sinklab
