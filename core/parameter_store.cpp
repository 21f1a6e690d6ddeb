#include "core/parameter_store.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>

namespace sinklab {

ParameterStore::Id ParameterStore::declare(const std::string& name, const Shape& shape) {
  if (finalized_) throw std::logic_error("ParameterStore: cannot declare '" + name + "' after finalize()");
  if (name.empty()) throw std::invalid_argument("ParameterStore: empty parameter name");
  if (index_.count(name)) throw std::invalid_argument("ParameterStore: duplicate parameter '" + name + "'");
  const Id id = static_cast<Id>(params_.size());
  // Each parameter starts on a 16-float boundary so kernels see aligned rows.
  params_.push_back({name, shape, total_});
  total_ += (static_cast<size_t>(shape.numel()) + 15) / 16 * 16;
  index_.emplace(name, id);
  return id;
}

void ParameterStore::finalize() {
  if (finalized_) return;
  values_ = allocate_zeroed_floats(total_);
  grads_ = allocate_zeroed_floats(total_);
  finalized_ = true;
}

void ParameterStore::require_finalized(const char* what) const {
  if (!finalized_) throw std::logic_error(std::string("ParameterStore::") + what + " before finalize()");
}

Tensor ParameterStore::tensor(Id id) const {
  require_finalized("tensor");
  const ParameterInfo& p = params_.at(static_cast<size_t>(id));
  return Tensor(values_.get() + p.offset, grads_.get() + p.offset, p.shape);
}

ParameterStore::Id ParameterStore::id_of(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) throw std::out_of_range("no parameter named '" + name + "'");
  return it->second;
}

Tensor ParameterStore::tensor(const std::string& name) const { return tensor(id_of(name)); }

std::span<float> ParameterStore::moment(int k) {
  require_finalized("moment");
  while (static_cast<int>(moments_.size()) <= k)
    moments_.push_back(allocate_zeroed_floats(total_));
  return {moments_[static_cast<size_t>(k)].get(), total_};
}

void ParameterStore::zero_grads() {
  require_finalized("zero_grads");
  std::fill_n(grads_.get(), total_, 0.0f);
}

}  // namespace sinklab
