// sinklab.compare's C++ half: sweep::compare_sweep, as `sinklab compare` runs it, with the GIL
// released; its printed lines go to Python's sys.stdout / sys.stderr (a notebook shows them).
#include <pybind11/iostream.h>
#include <pybind11/stl.h>

#include <iostream>
#include <string>
#include <vector>

#include "bindings/training_parts.h"
#include "config_loading/config_loader.h"
#include "sweep/compare_sweep.h"
#include "sweep/sweep_error.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

// (output folder, exit code as `sinklab compare` would return it, the signal that stopped it or 0).
py::tuple compare(const std::string& sweep_file, int jobs, const std::string& out, const std::vector<std::string>& sets,
                  bool dry_run, const std::string& executable) {
  sweep::CompareOptions options;
  options.sweep_file = sweep_file;
  options.out_dir = out;
  options.sets = sets;
  options.jobs = jobs;
  options.dry_run = dry_run;
  options.executable = executable;
  options.vocab = registered_vocabulary();
  const py::scoped_ostream_redirect to_stdout(std::cout, py::module_::import("sys").attr("stdout"));
  const py::scoped_estream_redirect to_stderr(std::cerr, py::module_::import("sys").attr("stderr"));
  std::string folder;
  int code = 0, signal = 0;
  {
    const py::gil_scoped_release nogil;
    std::ostream silent(nullptr);
    folder = sweep::plan_sweep(options, silent).out_dir.string();  // validates; compare_sweep plans it again
    try {
      code = sweep::compare_sweep(options, std::cout, std::cerr);
    } catch (const sweep::SweepInterrupted& e) {
      std::cerr << "sinklab: " << e.what() << std::endl;
      signal = e.signal();
    }
    std::cout.flush();
    std::cerr.flush();
  }
  return py::make_tuple(folder, code, signal);
}

}  // namespace

void bind_compare(py::module_& m) {
  m.def("_compare", &compare, py::arg("sweep"), py::arg("jobs"), py::arg("out"), py::arg("sets"), py::arg("dry_run"),
        py::arg("executable"),
        "`sinklab compare` in-process (sinklab.compare checks the arguments). Returns (output folder, exit code, "
        "signal).");
  // The exit code of a compare whose runs all finished after damaged run files were moved aside.
  m.attr("_COMPARE_EXIT_FILES_MOVED_ASIDE") = sweep::kCompareExitFilesMovedAside;
}

}  // namespace sinklab::python
