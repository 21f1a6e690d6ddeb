#pragma once
// Module: a named node of the model tree. Parameters are declared in the shared ParameterStore under
// dotted names (prefix + local name, e.g. "blocks.1.attn.w_q.weight"); children are registered so
// that initialization and train/eval mode reach the whole tree in declaration order.
#include <string>
#include <vector>

#include "core/parameter_store.h"
#include "core/rng.h"

namespace sinklab {

class Module {
 public:
  Module(ParameterStore& store, std::string prefix) : store_(store), prefix_(std::move(prefix)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& prefix() const { return prefix_; }

  // Fills this module's parameters, then its children's, in declaration order (deterministic).
  void initialize(Rng& rng);
  void set_training(bool on);
  bool training() const { return training_; }

 protected:
  std::string child_prefix(const std::string& local) const { return prefix_.empty() ? local : prefix_ + "." + local; }
  ParameterStore::Id declare(const std::string& local, const Shape& shape) {
    return store_.declare(child_prefix(local), shape);
  }
  Tensor param(ParameterStore::Id id) const { return store_.tensor(id); }
  void add_child(Module& child) { children_.push_back(&child); }
  // This module's own parameters (not its children's); called after the store is finalized.
  virtual void initialize_own(Rng& /*rng*/) {}

  ParameterStore& store_;

 private:
  std::string prefix_;
  std::vector<Module*> children_;
  bool training_ = true;
};

}  // namespace sinklab
