#include "models/open_models/weight_mapping.h"

#include <algorithm>
#include <stdexcept>

#include "models/open_models/hf_config.h"

namespace sinklab {

void WeightMapping::expect_shape(const std::string& tensor, const TensorShape& shape, const std::string& layout) const {
  const SafetensorsEntry* e = weights_.find(tensor);
  if (!e) throw OpenModelError("weights " + weights_.where() + ": has no tensor " + tensor + " (expected " +
                               shape_text(shape) + layout + ")");
  if (e->shape != shape)
    throw OpenModelError("weights " + weights_.file_of(tensor) + ": tensor " + tensor + " has shape " +
                         shape_text(e->shape) + ", expected " + shape_text(shape) + layout + " from the config");
}

float* WeightMapping::destination(const std::string& parameter, int64_t at, int64_t n) {
  Tensor dst = model_.parameters().tensor(parameter);
  if (at < 0 || n < 0 || at + n > dst.numel())
    throw std::logic_error("open model mapping: elements [" + std::to_string(at) + ", " + std::to_string(at + n) +
                           ") of parameter " + parameter + " with " + std::to_string(dst.numel()));
  written_[parameter] += n;
  return dst.data() + at;
}

void WeightMapping::copy(const std::string& tensor, const TensorShape& shape, const std::string& parameter) {
  expect_shape(tensor, shape);
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  weights_.read_into(tensor, 0, static_cast<uint64_t>(n), destination(parameter, 0, n));
  used_.insert(tensor);
}

void WeightMapping::copy_rows(const std::string& tensor, const TensorShape& shape, int64_t row, int64_t rows,
                              const std::string& parameter, int64_t at) {
  expect_shape(tensor, shape);
  int64_t width = 1;
  for (size_t i = 1; i < shape.size(); ++i) width *= shape[i];
  weights_.read_into(tensor, static_cast<uint64_t>(row * width), static_cast<uint64_t>(rows * width),
                     destination(parameter, at * width, rows * width));
  used_.insert(tensor);
}

NamedTensor WeightMapping::read(const std::string& tensor, const TensorShape& shape, const std::string& layout) {
  expect_shape(tensor, shape, layout);
  used_.insert(tensor);
  return weights_.read(tensor);
}

void WeightMapping::write(const std::string& parameter, const float* values, int64_t at, int64_t n) {
  std::copy(values, values + n, destination(parameter, at, n));
}

void WeightMapping::check_equal_to_parameter(const NamedTensor& tensor, const std::string& parameter,
                                             const std::string& why) const {
  const Tensor p = model_.parameters().tensor(parameter);
  if (static_cast<int64_t>(tensor.values.size()) != p.numel() ||
      !std::equal(tensor.values.begin(), tensor.values.end(), p.data()))
    throw OpenModelError("weights " + weights_.file_of(tensor.name) + ": tensor " + tensor.name + " differs from " +
                         parameter + " although " + why + "; refused rather than choosing one");
}

void WeightMapping::skip(const std::string& tensor) {
  if (has(tensor)) used_.insert(tensor);
}

void WeightMapping::finish(const std::string& family) const {
  for (const std::string& name : weights_.names())
    if (!used_.count(name))
      throw OpenModelError("weights " + weights_.file_of(name) + ": tensor " + name + " is not part of a " + family +
                           " model with this config.json: another architecture, or a config.json that does not "
                           "match the weights?");
  for (const ParameterInfo& p : model_.parameters().parameters()) {
    const auto it = written_.find(p.name);
    const int64_t n = model_.parameters().tensor(p.name).numel();
    if (it == written_.end() || it->second != n)
      throw std::logic_error("open model mapping (" + family + "): parameter " + p.name + " written " +
                             std::to_string(it == written_.end() ? 0 : it->second) + " of " + std::to_string(n) +
                             " elements");
  }
}

}  // namespace sinklab
