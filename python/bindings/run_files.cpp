// Run-folder and sweep-folder files for python/sinklab/runs.py and sweeps.py, each read by its one C++
// reader (docs/analysis.md, "Run directory files"): bounded, a FIFO or a device refused by name, every
// field checked as the commands check it. Python never parses these files itself.
#include <pybind11/numpy.h>

#include <cmath>

#include "bindings/bindings.h"
#include "run_files/attention_snapshot_file.h"
#include "run_files/checkpoint.h"
#include "run_files/metrics_log.h"
#include "run_files/npy.h"
#include "run_files/run_folder.h"
#include "run_files/run_provenance.h"
#include "run_files/run_summary.h"
#include "run_files/sweep_manifest_file.h"
#include "sweep/sweep_error.h"

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

// A JSON value the C++ readers returned as Python values, as the file holds it: objects as dicts (in the
// readers' key order), arrays as lists, null and non-finite numbers as None.
py::object python_value(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [key, value] : j.items()) d[py::str(key)] = python_value(value);
      return d;
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& item : j) l.append(python_value(item));
      return l;
    }
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float: {
      // The writers store a number nobody computed as NaN, which the file holds as null.
      const double d = j.get<double>();
      return std::isfinite(d) ? py::object(py::float_(d)) : py::object(py::none());
    }
    default: return py::none();
  }
}

py::list metrics_records(const std::vector<MetricsRecord>& records) {
  py::list out;
  for (const MetricsRecord& r : records) out.append(python_value(nlohmann::json(r)));
  return out;
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
  m.def(
      "run_folder_state",
      [](const std::string& path) {
        switch (inspect_run_folder(path)) {
          case RunFolderState::empty: return "empty";
          case RunFolderState::unfinished: return "unfinished";
          case RunFolderState::finished: return "finished";
        }
        return "empty";
      },
      py::arg("path"),
      "\"empty\" (no file a run writes), \"unfinished\" (run files, no summary.json) or \"finished\", as `train` "
      "tells them.");
  m.def(
      "read_summary", [](const std::string& path) { return python_value(nlohmann::json(read_run_summary(path))); },
      py::arg("path"),
      "summary.json as a dict: what the reader of `report` and `compare` read from it (null numbers as None).");
  m.def(
      "read_metrics",
      [](const std::string& path, bool complete_lines_only) {
        return metrics_records(complete_lines_only ? read_complete_metrics(path) : read_metrics(path));
      },
      py::arg("path"), py::arg("complete_lines_only"),
      "metrics.jsonl as a list of dicts, one per line, read by `report`'s reader; complete_lines_only leaves out "
      "a last line without its newline (a run still writing).");
  m.def(
      "read_run_info", [](const std::string& path) { return python_value(read_provenance(path)); }, py::arg("path"),
      "run.json as a dict.");
  m.def(
      "read_sweep_manifest",
      [](const std::string& path) {
        try {
          return python_value(read_sweep_manifest_file(path));
        } catch (const SweepManifestError& e) {
          throw sweep::SweepError(e.what());  // sinklab.SweepError in Python, as compare reports it
        }
      },
      py::arg("path"),
      "A sweep folder's sweep.json as a dict, read and checked by the reader `compare` and `report` use.");
  m.def(
      "read_attention_map",
      [](const std::string& path) {
        NpyArray a = read_npy(path);
        std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
        return array_of<float>(a.data, shape);
      },
      py::arg("path"), "An attention/*.npy map as a float32 array, read by the reader `report` uses.");
}

}  // namespace sinklab::python
