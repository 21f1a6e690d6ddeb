#pragma once
// Position-wise MLP: fc2(act(fc1(x))), act = GELU (erf form), ReLU, GELU's tanh approximation or SiLU;
// gated: fc2(act(fc1(x)) * up(x)) (SwiGLU with SiLU: Llama, Mistral, Qwen; fc1 is their gate_proj).
#include <memory>

#include "layers/linear.h"

namespace sinklab {

class Mlp : public Module {
 public:
  Mlp(ParameterStore& store, std::string prefix, int width, int hidden, Activation activation, bool bias, InitSpec init,
      bool gated = false);
  Tensor forward(Graph& g, const Tensor& x) const;

 private:
  Activation activation_;
  Linear fc1_, fc2_;
  std::unique_ptr<Linear> up_;  // gated only; declared after fc2 so ungated models keep their parameter order
};

}  // namespace sinklab
