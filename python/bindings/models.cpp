#include "bindings/bindings.h"

namespace sinklab::python {
void bind_models(pybind11::module_&) {}
}  // namespace sinklab::python
