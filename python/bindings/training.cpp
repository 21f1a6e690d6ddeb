// Training, sweeps and task sampling in-process (docs/python.md); python/sinklab/training.py is the
// public face of these functions.
#include "bindings/bindings.h"
#include "bindings/training_parts.h"

namespace sinklab::python {

void bind_training(pybind11::module_& m) {
  bind_train(m);
  bind_compare(m);
  bind_tasks(m);
}

}  // namespace sinklab::python
