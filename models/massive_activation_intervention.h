#pragma once
// Sun et al.'s interventions on massive activations (docs/sinks-in-language-models.md): the residual
// stream after block `layer` (blocks.{layer}.resid_post) at one position, in its top-k channels, set
// to zero (set_zero) or to its mean over the evaluation inputs (set_mean) for the rest of the pass.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "core/observe/activation_hooks.h"
#include "data/eval_set.h"
#include "layers/transformer.h"
#include "models/task_objective.h"

namespace sinklab {

enum class MassiveMode : uint8_t { set_zero, set_mean };

// "set_zero" | "set_mean"; anything else is std::invalid_argument naming the choices.
MassiveMode parse_massive_mode(const std::string& text);
std::string_view massive_mode_name(MassiveMode mode);

struct MassiveIntervention {
  MassiveMode mode = MassiveMode::set_zero;
  int layer = 0, position = 0;
  std::vector<int> channels;      // the top-k channels by mean |h[position, c]|, largest first
  std::vector<double> mean_abs;   // their mean |h| over the evaluation inputs
  std::vector<float> values;      // what they are set to: 0, or their mean (signed) over the inputs
};

// Reads blocks.{layer}.resid_post at `position` on every input of `set` (one unhooked-equivalent pass:
// nothing is changed), picks the top_k channels and their replacement values. Throws
// std::invalid_argument for a layer, position or top_k the model or set does not have.
MassiveIntervention plan_massive_intervention(Graph& g, Transformer& model, const TaskObjective& objective,
                                              const EvalSet& set, MassiveMode mode, int layer, int position, int top_k);

// Applies a plan: hand it to Transformer::set_hooks for the passes it should change.
class MassiveActivationHooks final : public ActivationHooks {
 public:
  explicit MassiveActivationHooks(MassiveIntervention plan);
  void on_activation(std::string_view name, const Tensor& value) override;

 private:
  MassiveIntervention plan_;
  std::string target_;  // "blocks.{layer}.resid_post"
};

}  // namespace sinklab
