#pragma once
// SGD with momentum (torch.optim.SGD convention: buf = momentum * buf + g; p -= lr * buf) and L2
// weight decay added to the gradient.
#include "train/optimizer.h"

namespace sinklab {

class Sgd final : public Optimizer {
 public:
  Sgd(float momentum, float weight_decay) : momentum_(momentum), weight_decay_(weight_decay) {}
  void step(ParameterStore& params, float lr) override;

 private:
  float momentum_, weight_decay_;
};

}  // namespace sinklab
