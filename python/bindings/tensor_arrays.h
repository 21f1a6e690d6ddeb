#pragma once
// NumPy arrays over sinklab tensors without copying: the array's base is a Python object that keeps
// the memory alive (a model for its parameters, a cache for the activations of a pass).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "core/tensor.h"

namespace sinklab::python {

// A float32 array with t's shape and strides over t's data; writable; `owner` keeps the data alive.
inline pybind11::array_t<float> array_view(const Tensor& t, pybind11::handle owner) {
  std::vector<pybind11::ssize_t> shape, strides;
  for (int a = 0; a < t.rank(); ++a) {
    shape.push_back(t.dim(a));
    strides.push_back(static_cast<pybind11::ssize_t>(t.stride(a) * static_cast<int64_t>(sizeof(float))));
  }
  return pybind11::array_t<float>(shape, strides, t.data(), owner);
}

}  // namespace sinklab::python
