#pragma once
// The parts of the Python module _sinklab (python/CMakeLists.txt, docs/python.md). Each bind_* adds one
// area's classes and functions; python/bindings/module.cpp calls them all.
#include <pybind11/pybind11.h>

namespace sinklab::python {

// C++ errors become the exceptions of python/sinklab/errors.py, with the CLI's messages.
void bind_errors(pybind11::module_& m);
// Configs as dicts (YAML read by the project's own loader).
void bind_configs(pybind11::module_& m);
// Models: load, parameters as NumPy views, run_with_cache, run_with_hooks.
void bind_models(pybind11::module_& m);
// Run-folder files read by the C++ reader of record (the checkpoint's training state).
void bind_run_files(pybind11::module_& m);
// Training, sweeps and task sampling in-process.
void bind_training(pybind11::module_& m);
// Tokenizers from a Hugging Face tokenizer.json.
void bind_tokenizers(pybind11::module_& m);

}  // namespace sinklab::python
