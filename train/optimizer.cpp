#include "train/optimizer.h"

#include <cmath>

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
  double s = 0.0;
  for (float g : params.grads()) s += static_cast<double>(g) * g;
  return std::sqrt(s);
}

double clip_gradient_norm(ParameterStore& params, double max_norm) {
  const double norm = gradient_norm(params);
  if (norm > max_norm && norm > 0.0) {
    const auto scale = static_cast<float>(max_norm / norm);
    for (float& g : params.grads()) g *= scale;
  }
  return norm;
}

}  // namespace sinklab
