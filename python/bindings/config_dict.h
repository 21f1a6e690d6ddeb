#pragma once
// YAML and configs as Python values (python/bindings/configs.cpp).
#include <pybind11/pybind11.h>
#include <yaml-cpp/yaml.h>

#include "config_loading/run_config.h"

namespace sinklab::python {

pybind11::object yaml_to_python(const YAML::Node& node);
// Every resolved key of `config` (its to_yaml), nested as in the file.
pybind11::dict config_dict(const RunConfig& config);

}  // namespace sinklab::python
