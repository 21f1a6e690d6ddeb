// C++ exceptions -> the Python exceptions of python/sinklab/errors.py. The message is what the CLI prints
// after "sinklab: error: ", so a notebook user reads the same words as a terminal user.
#include <filesystem>
#include <stdexcept>

#include "bindings/bindings.h"
#include "config_loading/config_error.h"
#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "data/task.h"
#include "run_files/checkpoint_file.h"
#include "run_files/run_folder_lock.h"
#include "run_files/run_summary.h"
#include "sweep/sweep_error.h"
#include "tokenizers/tokenizer_error.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

void raise(const char* type, const std::exception& e) {
  const py::object cls = py::module_::import("sinklab.errors").attr(type);
  PyErr_SetObject(cls.ptr(), cls(e.what()).ptr());
}

}  // namespace

void bind_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      const py::object cls = py::module_::import("sinklab.errors").attr("ConfigError");
      PyErr_SetObject(cls.ptr(), cls(e.what(), e.source(), e.line(), e.key()).ptr());
    } catch (const TaskError& e) {
      raise("TaskError", e);
    } catch (const CheckpointError& e) {
      raise("CheckpointError", e);
    } catch (const RunFileError& e) {
      raise("RunFileError", e);
    } catch (const RunFolderBusy& e) {
      raise("RunFolderBusy", e);
    } catch (const sweep::SweepError& e) {
      raise("SweepError", e);
    } catch (const TokenizerError& e) {
      raise("TokenizerError", e);
    } catch (const FileReadError& e) {
      raise("FileError", e);
    } catch (const FileWriteError& e) {
      raise("FileError", e);
    } catch (const std::filesystem::filesystem_error& e) {
      raise("FileError", e);
    }
    // Anything else falls through to pybind11's own translation (std::invalid_argument -> ValueError, ...).
  });
}

}  // namespace sinklab::python
