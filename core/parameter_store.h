#pragma once
// Long-lived parameters: declared by name (dotted, e.g. "blocks.1.attn.w_q.weight") while a model is
// built, then finalize() lays them out in one contiguous block for values, one for gradients, and one
// per optimizer moment (allocated on request). Contiguity makes optimizer updates, gradient norms,
// clipping and checkpoints single loops over flat arrays.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/large_block.h"
#include "core/tensor.h"

namespace sinklab {

struct ParameterInfo {
  std::string name;
  Shape shape;
  size_t offset = 0;  // into the flat blocks
};

class ParameterStore {
 public:
  using Id = int;

  // Declares a parameter; its storage exists only after finalize(). Duplicate names are rejected.
  Id declare(const std::string& name, const Shape& shape);
  void finalize();  // allocates zeroed value and gradient blocks
  bool finalized() const { return finalized_; }

  Tensor tensor(Id id) const;                  // values with their gradient buffer
  Tensor tensor(const std::string& name) const;  // throws naming the parameter
  Id id_of(const std::string& name) const;
  bool contains(const std::string& name) const { return index_.count(name) != 0; }

  const std::vector<ParameterInfo>& parameters() const { return params_; }
  size_t size() const { return total_; }  // floats over all parameters

  std::span<float> values() { return {values_.get(), total_}; }
  std::span<const float> values() const { return {values_.get(), total_}; }
  std::span<float> grads() { return {grads_.get(), total_}; }
  std::span<const float> grads() const { return {grads_.get(), total_}; }
  // Optimizer state block k (zero-initialized on first request).
  std::span<float> moment(int k);
  int moment_count() const { return static_cast<int>(moments_.size()); }

  void zero_grads();

 private:
  void require_finalized(const char* what) const;

  std::vector<ParameterInfo> params_;
  std::unordered_map<std::string, Id> index_;
  size_t total_ = 0;
  bool finalized_ = false;
  // core/large_block.h: a large block arrives as untouched zero pages, so the gradients of a model that
  // is only loaded (inspect, probe, GPT-2 weights) take no memory until a backward pass writes them.
  LargeBlock values_;
  LargeBlock grads_;
  std::vector<LargeBlock> moments_;
};

}  // namespace sinklab
