#pragma once
// Position-wise MLP: fc2(act(fc1(x))), act = GELU (erf form), ReLU or GELU's tanh approximation.
#include "layers/linear.h"

namespace sinklab {

class Mlp : public Module {
 public:
  Mlp(ParameterStore& store, std::string prefix, int width, int hidden, Activation activation, bool bias, InitSpec init);
  Tensor forward(Graph& g, const Tensor& x) const;

 private:
  Activation activation_;
  Linear fc1_, fc2_;
};

}  // namespace sinklab
