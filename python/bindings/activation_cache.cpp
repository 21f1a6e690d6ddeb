#include "bindings/activation_cache.h"

namespace sinklab::python {

const Tensor* ActivationCache::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e.value;
  return nullptr;
}

std::vector<std::string> ActivationCache::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

}  // namespace sinklab::python
