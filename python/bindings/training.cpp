#include "bindings/bindings.h"

namespace sinklab::python {
void bind_training(pybind11::module_&) {}
}  // namespace sinklab::python
