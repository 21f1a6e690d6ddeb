#pragma once
// Named activations of an evaluation pass, for reading and editing them as they are computed (the Python
// package's run_with_cache and run_with_hooks, docs/python.md "Activation names"). With hooks set:
// - every named activation is handed to on_activation as soon as it exists and before anything reads it;
//   the hook may change its values in place, and the rest of the pass computes with the changed values;
// - attention takes its materialized path (the weights [H, B, T, T] exist), as for an observed pass;
// - the graph must not record gradients (an edited activation would make backward wrong).
// Layouts follow TransformerLens's order over our head-major storage, as strided views (no copies):
// residual-stream tensors [B, T, C]; queries, keys, values and per-head outputs [B, T, H, D]; scores and
// weights [B, H, T, T]; gates [B, T, H, G].
#include <string>
#include <string_view>

#include "core/tensor.h"

namespace sinklab {

class ActivationHooks {
 public:
  virtual ~ActivationHooks() = default;
  // `name` e.g. "blocks.0.attn.weights"; `value` valid until the graph is reset.
  virtual void on_activation(std::string_view name, const Tensor& value) = 0;
};

// Where a model's layers find the hooks of the current pass (none by default): the model owns one and
// hands its address to every layer, as it does with its observers.
class ActivationHookSlot {
 public:
  ActivationHooks* hooks() const { return hooks_; }
  void set(ActivationHooks* hooks) { hooks_ = hooks; }
  bool active() const { return hooks_ != nullptr; }
  // Hands `value` to the hooks under prefix + "." + leaf; does nothing without hooks.
  void visit(const std::string& prefix, std::string_view leaf, const Tensor& value) const {
    if (!hooks_) return;
    std::string name = prefix;
    if (!name.empty()) name += '.';
    name += leaf;
    hooks_->on_activation(name, value);
  }

 private:
  ActivationHooks* hooks_ = nullptr;
};

}  // namespace sinklab
