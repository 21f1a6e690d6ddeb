// Run-folder files the Python readers (python/sinklab/runs.py) leave to the C++ reader of record.
#include "bindings/bindings.h"
#include "run_files/checkpoint.h"

namespace py = pybind11;

namespace sinklab::python {

void bind_run_files(py::module_& m) {
  m.def(
      "checkpoint_step", [](const std::string& path) { return read_training_state(path).step; }, py::arg("path"),
      "The steps done recorded in a checkpoint file (where a resume starts), read without the weights.");
}

}  // namespace sinklab::python
