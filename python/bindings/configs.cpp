// Configs from Python: a YAML file (plus --set style overrides) loaded and validated by the same loader as
// the CLI, returned as the resolved YAML text or as a dict; a run's config.yaml goes the same way.
#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/config_dict.h"
#include "config_loading/config_loader.h"
#include "config_loading/config_writer.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

// A plain YAML scalar as the Python value it reads as (YAML 1.2 core schema); quoted ones stay strings.
py::object scalar_value(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return py::str(text);
  if (text == "~" || text == "null" || text == "Null" || text == "NULL" || text.empty()) return py::none();
  if (text == "true" || text == "True" || text == "TRUE") return py::bool_(true);
  if (text == "false" || text == "False" || text == "FALSE") return py::bool_(false);
  long long i = 0;
  const char* end = text.data() + text.size();
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  if (auto [p, ec] = std::from_chars(first, end, i); ec == std::errc() && p == end) return py::int_(i);
  if (text == ".inf" || text == "+.inf" || text == ".Inf") return py::float_(std::numeric_limits<double>::infinity());
  if (text == "-.inf" || text == "-.Inf") return py::float_(-std::numeric_limits<double>::infinity());
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return py::float_(std::nan(""));
  double d = 0;
  if (auto [p, ec] = std::from_chars(first, end, d); ec == std::errc() && p == end) return py::float_(d);
  return py::str(text);
}

}  // namespace

py::object yaml_to_python(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      py::dict d;
      for (const auto& kv : node) d[py::str(kv.first.Scalar())] = yaml_to_python(kv.second);
      return d;
    }
    case YAML::NodeType::Sequence: {
      py::list l;
      for (const auto& item : node) l.append(yaml_to_python(item));
      return l;
    }
    case YAML::NodeType::Scalar: return scalar_value(node);
    default: return py::none();
  }
}

py::dict config_dict(const RunConfig& config) {
  return yaml_to_python(YAML::Load(to_yaml(config))).cast<py::dict>();
}

void bind_configs(py::module_& m) {
  m.def(
      "load_config",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        return config_dict(load_run_config(path, overrides));
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
      "The config `path` with `overrides` ('key=value', as --set) applied and validated, every key resolved, as a "
      "dict.");
  m.def(
      "config_yaml",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        return to_yaml(load_run_config(path, overrides));
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
      "The same resolved config as YAML text (what a run writes to its config.yaml).");
  m.def(
      "read_run_config",
      [](const std::string& path) { return config_dict(load_run_config(path, {}, std::nullopt)); }, py::arg("path"),
      "A run's config.yaml as a dict, read by the loader `sample`, `probe` and `--resume` use: bounded (a FIFO or "
      "a device is refused by name) and walked only along the schema's keys, so YAML aliases cannot expand it.");
}

}  // namespace sinklab::python
