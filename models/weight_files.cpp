#include "models/weight_files.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "config_loading/config_writer.h"
#include "core/graph.h"
#include "core/io/file_read.h"
#include "core/thread_count.h"
#include "data/eval_set.h"
#include "data/task_registry.h"
#include "run_files/npz_file.h"
#include "run_files/safetensors_file.h"

namespace sinklab {
namespace {

std::vector<int64_t> dims_of(const Shape& shape) {
  return {shape.dims.begin(), shape.dims.begin() + shape.rank};
}

void write_tensors(const Model& model, const std::vector<NamedTensor>& tensors, const std::filesystem::path& path,
                   WeightFormat format) {
  const std::string config = to_yaml(model.config());
  if (format == WeightFormat::safetensors)
    write_safetensors(path, tensors, {{kExportConfigKey, config}});
  else
    write_npz(path, tensors, {{kExportConfigEntry, config}});
}

}  // namespace

std::vector<NamedTensor> parameter_tensors(const Model& model) {
  const std::span<const float> values = model.parameters().values();
  std::vector<NamedTensor> out;
  for (const ParameterInfo& p : model.parameters().parameters()) {
    const auto begin = values.begin() + static_cast<std::ptrdiff_t>(p.offset);
    out.push_back({p.name, dims_of(p.shape), std::vector<float>(begin, begin + p.shape.numel())});
  }
  return out;
}

void export_weights(const Model& model, const std::filesystem::path& path, WeightFormat format) {
  write_tensors(model, parameter_tensors(model), path, format);
}

std::vector<NamedTensor> evaluation_tensors(Model& model, int samples) {
  const RunConfig& c = model.config();
  const auto task = make_task(c.task, c.model.residual);
  const TaskShape& shape = task->shape();
  if (shape.input != TaskInput::vectors || shape.loss != TaskLoss::mse)
    throw std::invalid_argument(
        "evaluation outputs are exported for tasks with vector inputs and an MSE target only (task " + c.task.name +
        " has token inputs or classes)");
  if (samples < 1 || samples > c.task.eval_samples)
    throw std::invalid_argument("evaluation samples: " + std::to_string(samples) +
                                " is outside 1 .. task.eval_samples (" + std::to_string(c.task.eval_samples) + ")");
  set_thread_count(c.threads);  // the run's thread count: the bits of its own evaluation
  const EvalSet set(*task, c.task);
  const ConstBatchView v = set.view(0, samples);
  const int64_t n = samples, t = shape.seq_len;
  std::vector<float> input(v.inputs, v.inputs + n * t * shape.input_dim);
  std::vector<float> target(v.targets, v.targets + n * t * shape.output_dim);
  Graph graph;
  NoGradGuard no_grad(graph);
  const Tensor in(input.data(), nullptr, Shape{n, t, static_cast<int64_t>(shape.input_dim)});
  const Tensor out = model.transformer().forward(graph, in);
  std::vector<float> output(out.data(), out.data() + out.numel());
  return {{"input", {n, t, shape.input_dim}, std::move(input)},
          {"target", {n, t, shape.output_dim}, std::move(target)},
          {"output", {n, t, shape.output_dim}, std::move(output)}};
}

void export_evaluation(Model& model, int samples, const std::filesystem::path& path, WeightFormat format) {
  write_tensors(model, evaluation_tensors(model, samples), path, format);
}

void load_initial_weights(Model& model, const std::filesystem::path& file) {
  const std::string where = "model.init_from: safetensors file " + file.string() + ": ";
  if (file.extension() == ".npz")
    throw SafetensorsError(where + "an .npz file; init_from reads safetensors (sinklab export --format safetensors)");
  SafetensorsContent content;
  try {
    content = read_safetensors(file);
  } catch (const SafetensorsError& e) {
    throw SafetensorsError("model.init_from: " + std::string(e.what()));
  } catch (const FileReadError& e) {
    throw SafetensorsError("model.init_from: " + std::string(e.what()));
  }
  std::unordered_map<std::string, const NamedTensor*> by_name;
  for (const NamedTensor& t : content.tensors) by_name[t.name] = &t;
  ParameterStore& params = model.parameters();
  for (const ParameterInfo& p : params.parameters()) {
    const auto found = by_name.find(p.name);
    if (found == by_name.end())
      throw SafetensorsError(where + "parameter " + p.name + ": the model has it, the file does not");
    if (found->second->shape != dims_of(p.shape))
      throw SafetensorsError(where + "parameter " + p.name + ": the file has shape " +
                             shape_text(found->second->shape) + ", the model " + shape_text(dims_of(p.shape)));
  }
  for (const NamedTensor& t : content.tensors)
    if (!params.contains(t.name))
      throw SafetensorsError(where + "tensor " + t.name +
                             " is not a parameter of the model (the file must hold exactly the model's parameters)");
  const std::span<float> values = params.values();
  for (const ParameterInfo& p : params.parameters()) {
    const std::vector<float>& v = by_name.at(p.name)->values;
    std::copy(v.begin(), v.end(), values.begin() + static_cast<std::ptrdiff_t>(p.offset));
  }
}

}  // namespace sinklab
