#pragma once
// Copies a checkpoint's tensors into a Model's parameters, checking every shape, and keeps account:
// every parameter must be written whole exactly once and every tensor of the checkpoint used (or
// skipped as a buffer the model recomputes), so a mapping that misses or misplaces a tensor is an error,
// never a silently zero or random weight.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/open_models/hf_weights.h"

namespace sinklab {

using TensorShape = std::vector<int64_t>;

class WeightMapping {
 public:
  WeightMapping(const HfWeights& weights, Model& model) : weights_(weights), model_(model) {}

  bool has(const std::string& tensor) const { return weights_.find(tensor) != nullptr; }
  // The tensor's shape, checked to be `shape` (OpenModelError naming the file, tensor and both shapes).
  void expect_shape(const std::string& tensor, const TensorShape& shape, const std::string& layout = "") const;
  // The whole tensor into `parameter` (same element count and row-major order).
  void copy(const std::string& tensor, const TensorShape& shape, const std::string& parameter);
  // Rows [row, row + rows) of a tensor of `shape` (rows along dim 0) into rows [at, at + rows) of `parameter`.
  void copy_rows(const std::string& tensor, const TensorShape& shape, int64_t row, int64_t rows,
                 const std::string& parameter, int64_t at);
  // The whole tensor, checked, for layouts that must be rearranged; marks it used.
  NamedTensor read(const std::string& tensor, const TensorShape& shape, const std::string& layout = "");
  // Values [begin, begin + n) of `values` into elements [at, at + n) of `parameter`.
  void write(const std::string& parameter, const float* values, int64_t at, int64_t n);
  // A tensor the model does not need (a mask or frequency buffer it recomputes), if present.
  void skip(const std::string& tensor);
  void mark_used(const std::string& tensor) { used_.insert(tensor); }
  // A stored copy of a tied matrix (lm_head beside the embedding) must equal the parameter it repeats.
  void check_equal_to_parameter(const NamedTensor& tensor, const std::string& parameter, const std::string& why) const;

  // Throws OpenModelError for the first checkpoint tensor that was neither used nor skipped, and
  // std::logic_error for a parameter not written whole (a mapping bug).
  void finish(const std::string& family) const;

 private:
  float* destination(const std::string& parameter, int64_t at, int64_t n);

  const HfWeights& weights_;
  Model& model_;
  std::set<std::string> used_;
  std::map<std::string, int64_t> written_;  // parameter -> elements written
};


}  // namespace sinklab
