#include "train/optimizer.h"

#include <cmath>

#include "core/kernels/optimizer_updates.h"
#include "train/adam.h"
#include "train/sgd.h"

namespace sinklab {

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& c) {
  const auto f = [](double x) { return static_cast<float>(x); };
  switch (c.name) {
    case OptimizerKind::adam: return std::make_unique<Adam>(f(c.beta1), f(c.beta2), f(c.eps), f(c.weight_decay), false);
    case OptimizerKind::adamw: return std::make_unique<Adam>(f(c.beta1), f(c.beta2), f(c.eps), f(c.weight_decay), true);
    case OptimizerKind::sgd: return std::make_unique<Sgd>(f(c.momentum), f(c.weight_decay));
  }
  return nullptr;
}

double gradient_norm(const ParameterStore& params) {
  const auto grads = params.grads();
  return std::sqrt(kernels::sum_of_squares(grads.data(), static_cast<int64_t>(grads.size())));
}

double clip_gradient_norm(ParameterStore& params, double max_norm) {
  const double norm = gradient_norm(params);
  if (norm > max_norm && norm > 0.0) {
    const auto grads = params.grads();
    kernels::scale_in_place(grads.data(), static_cast<int64_t>(grads.size()), static_cast<float>(max_norm / norm));
  }
  return norm;
}

}  // namespace sinklab
