#pragma once
// Adam (Kingma & Ba) and AdamW (Loshchilov & Hutter: decoupled weight decay), as torch.optim does:
//   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
//   p -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
// Adam adds weight_decay * p to g (L2); AdamW multiplies p by (1 - lr * weight_decay) first.
#include "train/optimizer.h"

namespace sinklab {

class Adam final : public Optimizer {
 public:
  Adam(float beta1, float beta2, float eps, float weight_decay, bool decoupled);
  void step(ParameterStore& params, float lr) override;

 private:
  float beta1_, beta2_, eps_, weight_decay_;
  bool decoupled_;
};

}  // namespace sinklab
