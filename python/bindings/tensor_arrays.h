#pragma once
// NumPy arrays over sinklab tensors without copying: the array's base is a Python object that keeps
// the memory alive (a model for its parameters, a cache for the activations of a pass). And the check
// every array a Python caller hands in or asks for passes before anything is allocated for it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "config_loading/memory_estimate.h"
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

// Refuses (ValueError naming `argument`) work that needs `bytes` (counted in double, so that no shape
// can overflow the count) when that is more than this machine can give: the largest size an allocation
// can have, or the memory available now (MemAvailable, or the cgroup's limit when lower), as the
// config loader's memory check does. A broadcast array of a few bytes can stand for terabytes.
inline void check_fits_in_memory(double bytes, const std::string& argument, const std::string& what) {
  const std::optional<double> available = available_memory();
  const double largest = 0x1p62;  // well below what size_t, ssize_t and the arena's counts can hold
  if (bytes <= largest && (!available || bytes <= *available)) return;
  throw pybind11::value_error(argument + ": " + what + " needs an estimated " + format_bytes(bytes) +
                              ", more than the " + (bytes > largest ? std::string("most one process can address")
                                                                    : format_bytes(*available) + " available") +
                              "; pass fewer or shorter sequences");
}

}  // namespace sinklab::python
