// sinklab.train's C++ half: the CLI's own train_in_folder (train/train_in_folder.h), so a run trained
// from Python is bit-identical to `sinklab train` with the same flags. The GIL is released for the
// whole training and taken back only to call on_log.
#include <pybind11/stl.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bindings/training_parts.h"
#include "run_files/run_summary.h"
#include "sweep/run_naming.h"
#include "train/interrupt.h"
#include "train/train_in_folder.h"
#include "train/trainer.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

const char* outcome_name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::finished: return "finished";
    case RunOutcome::interrupted: return "interrupted";
    case RunOutcome::diverged: return "diverged";
  }
  return "finished";
}

// (run folder, outcome, steps done, the signal that asked while it trained or 0: a run that finished
// anyway reports it too, so that sinklab.train hands it to Python's handler and no Ctrl-C is lost).
py::tuple train(const std::string& config, const std::vector<std::string>& sets, const std::string& out,
                const std::string& resume, const std::optional<std::string>& seed,
                const std::optional<std::string>& threads, const std::optional<std::string>& name, bool quiet,
                bool force, const py::object& on_log, const std::vector<std::string>& command_line) {
  TrainRequest request;
  request.config = config;
  request.sets = sets;
  request.out = out;
  request.resume = resume;
  request.seed = seed;
  request.threads = threads;
  request.name = name;
  request.quiet = quiet;
  request.force = force;
  request.command_line = command_line;
  request.name_with_overrides = sweep::name_with_overrides;
  if (!on_log.is_none()) {
    // The callable is held by the caller's frame; the std::function (copied without the GIL) keeps only
    // its address, never a reference count.
    request.on_log = [callback = on_log.ptr()](const MetricsRecord& record) {
      std::ostringstream line;
      write_metrics_line(line, record);
      const py::gil_scoped_acquire gil;
      const py::handle python_on_log(callback);
      python_on_log(record.step, line.str());  // a Python exception stops the run, then propagates
    };
  }
  std::optional<TrainedRun> run;
  {
    const py::gil_scoped_release nogil;
    run = train_in_folder(request);
  }
  const RunOutcome outcome = outcome_of(run->summary);
  // This thread's own answer: another thread's training that begins meanwhile clears interrupt_signal().
  const int signal = signal_when_scope_ended();
  return py::make_tuple(run->dir.string(), outcome_name(outcome), run->summary.steps, signal);
}

}  // namespace

void bind_train(py::module_& m) {
  m.def("_train", &train, py::arg("config"), py::arg("sets"), py::arg("out"), py::arg("resume"), py::arg("seed"),
        py::arg("threads"), py::arg("name"), py::arg("quiet"), py::arg("force"), py::arg("on_log"),
        py::arg("command_line"),
        "`sinklab train` in-process, flags as typed (sinklab.train checks and builds them). on_log(step, line) gets "
        "each metrics.jsonl line. Returns (run folder, 'finished' | 'interrupted' | 'diverged', steps, the signal "
        "that asked while it trained or 0).");
}

}  // namespace sinklab::python
