// The module _sinklab, imported by python/sinklab/__init__.py.
#include "bindings/bindings.h"

PYBIND11_MODULE(_sinklab, m) {
  m.doc() = "sinklab's C++ core: models, hooks, training (docs/python.md)";
  sinklab::python::bind_errors(m);
  sinklab::python::bind_configs(m);
  sinklab::python::bind_models(m);
  sinklab::python::bind_run_files(m);
  sinklab::python::bind_training(m);
  sinklab::python::bind_tokenizers(m);
}
