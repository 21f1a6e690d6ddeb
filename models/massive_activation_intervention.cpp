#include "models/massive_activation_intervention.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace sinklab {
namespace {

// Sums h[:, position, :] and |h[:, position, :]| of one layer's output over every input it sees.
class PositionRecorder final : public ActivationHooks {
 public:
  PositionRecorder(std::string target, int position) : target_(std::move(target)), position_(position) {}
  void on_activation(std::string_view name, const Tensor& value) override {
    if (name != target_) return;
    const int64_t B = value.dim(0), T = value.dim(1), C = value.dim(2);
    if (position_ >= T)
      throw std::invalid_argument("--massive-position " + std::to_string(position_) + ": the inputs have " +
                                  std::to_string(T) + " positions");
    if (sum_.empty()) sum_.assign(static_cast<size_t>(C), 0.0), abs_sum_.assign(static_cast<size_t>(C), 0.0);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) {
        const double x = value.data()[b * value.stride(0) + position_ * value.stride(1) + c * value.stride(2)];
        sum_[static_cast<size_t>(c)] += x;
        abs_sum_[static_cast<size_t>(c)] += std::fabs(x);
      }
    inputs_ += B;
  }
  std::vector<double> sum_, abs_sum_;
  int64_t inputs_ = 0;

 private:
  std::string target_;
  int position_;
};

std::string resid_post_name(int layer) { return "blocks." + std::to_string(layer) + ".resid_post"; }

}  // namespace

MassiveMode parse_massive_mode(const std::string& text) {
  if (text == "set_zero") return MassiveMode::set_zero;
  if (text == "set_mean") return MassiveMode::set_mean;
  throw std::invalid_argument("--massive: expected set_zero or set_mean, got '" + text + "'");
}

std::string_view massive_mode_name(MassiveMode mode) { return mode == MassiveMode::set_zero ? "set_zero" : "set_mean"; }

MassiveIntervention plan_massive_intervention(Graph& g, Transformer& model, const TaskObjective& objective,
                                              const EvalSet& set, MassiveMode mode, int layer, int position,
                                              int top_k) {
  if (layer < 0 || layer >= model.layers())
    throw std::invalid_argument("--massive-layer " + std::to_string(layer) + ": the model has layers 0.." +
                                std::to_string(model.layers() - 1));
  if (position < 0 || position >= objective.shape().seq_len)
    throw std::invalid_argument("--massive-position " + std::to_string(position) + ": the inputs have positions 0.." +
                                std::to_string(objective.shape().seq_len - 1));
  PositionRecorder recorder(resid_post_name(layer), position);
  {
    ActivationHooks* previous = model.hooks();
    model.set_hooks(&recorder);
    try {
      NoGradGuard no_grad(g);
      const int step = evaluation_chunk(objective.shape().seq_len);
      for (int begin = 0; begin < set.size(); begin += step) {
        const int count = std::min(step, set.size() - begin);
        g.reset();
        objective.run(g, model, set.view(begin, count), count);
      }
      g.reset();
    } catch (...) {
      model.set_hooks(previous);
      throw;
    }
    model.set_hooks(previous);
  }
  if (recorder.inputs_ == 0)
    throw std::invalid_argument("--massive: layer " + std::to_string(layer) + " has no residual stream to change");
  const int channels = static_cast<int>(recorder.sum_.size());
  if (top_k < 1 || top_k > channels)
    throw std::invalid_argument("--massive-top-k " + std::to_string(top_k) + ": expected 1.." +
                                std::to_string(channels));
  std::vector<int> order(static_cast<size_t>(channels));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return recorder.abs_sum_[static_cast<size_t>(a)] > recorder.abs_sum_[static_cast<size_t>(b)];
  });
  MassiveIntervention plan;
  plan.mode = mode;
  plan.layer = layer;
  plan.position = position;
  const double n = static_cast<double>(recorder.inputs_);
  for (int k = 0; k < top_k; ++k) {
    const size_t c = static_cast<size_t>(order[static_cast<size_t>(k)]);
    plan.channels.push_back(static_cast<int>(c));
    plan.mean_abs.push_back(recorder.abs_sum_[c] / n);
    plan.values.push_back(mode == MassiveMode::set_zero ? 0.0f : static_cast<float>(recorder.sum_[c] / n));
  }
  return plan;
}

MassiveActivationHooks::MassiveActivationHooks(MassiveIntervention plan)
    : plan_(std::move(plan)), target_(resid_post_name(plan_.layer)) {}

// blocks.{layer}.resid_post [B, T, C]: h[b, position, channels[k]] = values[k] for every input b.
void MassiveActivationHooks::on_activation(std::string_view name, const Tensor& value) {
  if (name != target_) return;
  const int64_t B = value.dim(0);
  for (int64_t b = 0; b < B; ++b)
    for (size_t k = 0; k < plan_.channels.size(); ++k)
      value.data()[b * value.stride(0) + plan_.position * value.stride(1) + plan_.channels[k] * value.stride(2)] =
          plan_.values[k];
}

}  // namespace sinklab
