#pragma once
// The parts of bind_training (python/bindings/training.cpp): one file each for training a run, running a
// sweep and sampling a task. python/sinklab/training.py checks the arguments and wraps them.
#include <pybind11/pybind11.h>

namespace sinklab::python {

void bind_train(pybind11::module_& m);    // python/bindings/training_train.cpp
void bind_compare(pybind11::module_& m);  // python/bindings/training_compare.cpp
void bind_tasks(pybind11::module_& m);    // python/bindings/training_tasks.cpp

}  // namespace sinklab::python
