// Run-folder files the Python readers (python/sinklab/runs.py) leave to the C++ reader of record.
#include <pybind11/numpy.h>

#include "bindings/bindings.h"
#include "run_files/attention_snapshot_file.h"
#include "run_files/checkpoint.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

// A NumPy array owning a copy of `values`, shaped `shape`.
template <typename T, typename U>
py::array_t<T> array_of(const std::vector<U>& values, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  T* data = out.mutable_data();
  for (size_t i = 0; i < values.size(); ++i) data[i] = static_cast<T>(values[i]);
  return out;
}

py::dict snapshots_dict(const AttentionSnapshots& s) {
  const auto S = static_cast<py::ssize_t>(s.steps.size()), R = static_cast<py::ssize_t>(s.side());
  const std::vector<py::ssize_t> maps{S, s.layers, s.heads, R, R};
  py::dict d;
  d["steps"] = array_of<int64_t>(s.steps, {S});
  d["mean"] = array_of<float>(s.mean, maps);
  d["example"] = array_of<float>(s.example, maps);
  d["rows"] = array_of<int32_t>(s.positions, {R});
  d["cols"] = array_of<int32_t>(s.positions, {R});
  d["roles"] = array_of<uint8_t>(s.roles, {s.seq_len});
  d["tokens"] = s.tokens.empty() ? py::object(py::none()) : py::object(array_of<int32_t>(s.tokens, {s.seq_len}));
  py::list labels;
  for (const std::string& l : s.token_labels) labels.append(py::bytes(l));
  d["token_labels"] = s.token_labels.empty() ? py::object(py::none()) : py::object(labels);
  d["seq_len"] = s.seq_len;
  return d;
}

}  // namespace

void bind_run_files(py::module_& m) {
  m.def(
      "checkpoint_step", [](const std::string& path) { return read_training_state(path).step; }, py::arg("path"),
      "The steps done recorded in a checkpoint file (where a resume starts), read without the weights.");
  m.def(
      "attention_snapshots", [](const std::string& path) { return snapshots_dict(read_attention_snapshots(path)); },
      py::arg("path"),
      "An attention_snapshots.npz file (docs/analysis.md) as a dict of arrays, checked by the trainer's own reader.");
}

}  // namespace sinklab::python
