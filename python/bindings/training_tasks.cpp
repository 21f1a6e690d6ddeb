// sinklab.task's C++ half: a config's task, sampled into NumPy arrays by the same code the trainer uses
// (data/task.h), and its fixed evaluation set as `sinklab eval` draws it (data/eval_set.h).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "bindings/tensor_arrays.h"
#include "bindings/training_parts.h"
#include "config_loading/config_loader.h"
#include "core/observe/position_roles.h"
#include "core/rng.h"
#include "data/eval_set.h"
#include "data/task.h"
#include "data/task_registry.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

Split split_named(const std::string& name) {
  if (name == "train") return Split::train;
  if (name == "eval") return Split::eval;
  throw std::invalid_argument("split: expected 'train' or 'eval', got '" + name + "'");
}

const char* input_name(TaskInput input) { return input == TaskInput::tokens ? "tokens" : "vectors"; }
const char* loss_name(TaskLoss loss) { return loss == TaskLoss::cross_entropy ? "cross_entropy" : "mse"; }

py::dict shape_dict(const TaskShape& s) {
  py::dict d;
  d["input"] = input_name(s.input);
  d["seq_len"] = s.seq_len;
  d["input_dim"] = s.input_dim;
  d["output_dim"] = s.output_dim;
  d["loss"] = loss_name(s.loss);
  return d;
}

// NumPy arrays for `batch` samples of `shape`, only those the shape uses, and a view onto them.
struct BatchArrays {
  BatchArrays(const TaskShape& shape, int batch) {
    const py::ssize_t b = batch, t = shape.seq_len;
    if (shape.input == TaskInput::vectors) {
      inputs = py::array_t<float>({b, t, static_cast<py::ssize_t>(shape.input_dim)});
      view.inputs = inputs.mutable_data();
    } else {
      input_ids = py::array_t<int32_t>({b, t});
      view.input_ids = input_ids.mutable_data();
    }
    if (shape.loss == TaskLoss::mse) {
      targets = py::array_t<float>({b, t, static_cast<py::ssize_t>(shape.output_dim)});
      view.targets = targets.mutable_data();
    } else {
      target_ids = py::array_t<int32_t>({b, t});
      view.target_ids = target_ids.mutable_data();
    }
    roles = py::array_t<uint8_t>({b, t});
    view.roles = roles.mutable_data();
  }
  py::dict dict() const {
    py::dict d;
    if (view.inputs) d["inputs"] = inputs;
    if (view.input_ids) d["input_ids"] = input_ids;
    if (view.targets) d["targets"] = targets;
    if (view.target_ids) d["target_ids"] = target_ids;
    d["roles"] = roles;
    return d;
  }
  py::array_t<float> inputs, targets;
  py::array_t<int32_t> input_ids, target_ids;
  py::array_t<uint8_t> roles;
  BatchView view{nullptr, nullptr, nullptr, nullptr, nullptr};
};

// The task of a resolved config: training batches on demand, and the evaluation set.
class PyTask {
 public:
  explicit PyTask(const RunConfig& config)
      : config_(config),
        task_(make_task(config.task, config.model.residual)),
        eval_config_(evaluation_task_config(config.task)),
        eval_task_(make_task(eval_config_, config.model.residual)) {}

  std::string name() const { return std::string(task_->name()); }
  py::dict shape() const { return shape_dict(task_->shape()); }
  py::dict eval_shape() const { return shape_dict(eval_task_->shape()); }
  int batch_size() const { return config_.train.batch_size; }

  // `size` samples drawn from Rng(seed), as EvalSet draws its set from Rng(eval_seed).
  py::dict batch(uint64_t seed, int size, Split split) const {
    const TaskShape& s = task_->shape();
    const double per_position = (s.input == TaskInput::vectors ? sizeof(float) * s.input_dim : sizeof(int32_t)) +
                                (s.loss == TaskLoss::mse ? sizeof(float) * s.output_dim : sizeof(int32_t)) + 1;
    check_fits_in_memory(
        per_position * size * s.seq_len, "size",
        "a batch of " + std::to_string(size) + " samples of " + std::to_string(s.seq_len) + " positions");
    BatchArrays arrays(s, size);
    {
      const py::gil_scoped_release nogil;
      Rng rng(seed);
      task_->sample(size, rng, split, arrays.view);
    }
    return arrays.dict();
  }

  // The evaluation set as training and `sinklab eval` build it (task.eval_seq_len, eval_samples, eval_seed).
  py::dict eval_batch() const {
    std::unique_ptr<EvalSet> set;
    {
      const py::gil_scoped_release nogil;
      set = std::make_unique<EvalSet>(*eval_task_, eval_config_);
    }
    BatchArrays arrays(set->shape(), set->size());
    copy_into(set->all(), set->shape(), set->size(), arrays.view);
    return arrays.dict();
  }

 private:
  static void copy_into(const ConstBatchView& from, const TaskShape& s, int batch, const BatchView& to) {
    const std::size_t positions = static_cast<std::size_t>(batch) * static_cast<std::size_t>(s.seq_len);
    if (to.inputs) std::copy_n(from.inputs, positions * static_cast<std::size_t>(s.input_dim), to.inputs);
    if (to.input_ids) std::copy_n(from.input_ids, positions, to.input_ids);
    if (to.targets) std::copy_n(from.targets, positions * static_cast<std::size_t>(s.output_dim), to.targets);
    if (to.target_ids) std::copy_n(from.target_ids, positions, to.target_ids);
    std::copy_n(from.roles, positions, to.roles);
  }

  RunConfig config_;
  std::unique_ptr<Task> task_;
  TaskConfig eval_config_;
  std::unique_ptr<Task> eval_task_;
};

}  // namespace

void bind_tasks(py::module_& m) {
  py::class_<PyTask>(m, "_Task")
      .def_property_readonly("name", &PyTask::name)
      .def_property_readonly("shape", &PyTask::shape)
      .def_property_readonly("eval_shape", &PyTask::eval_shape)
      .def_property_readonly("batch_size", &PyTask::batch_size)
      .def(
          "batch",
          [](const PyTask& t, uint64_t seed, int size, const std::string& split) {
            return t.batch(seed, size, split_named(split));
          },
          py::arg("seed"), py::arg("size"), py::arg("split"))
      .def("eval_batch", &PyTask::eval_batch);
  m.def(
      "_task",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        return PyTask(load_run_config(path, overrides));
      },
      py::arg("path"), py::arg("overrides"), "The task of the config `path` with `overrides` applied.");
  py::dict roles;
  roles["sink_key"] = position_role::kSinkKey;
  roles["no_op_row"] = position_role::kNoOpRow;
  roles["active_row"] = position_role::kActiveRow;
  m.attr("_position_roles") = roles;
}

}  // namespace sinklab::python
