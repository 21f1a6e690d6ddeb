#include "layers/mlp.h"

#include "core/ops/unary.h"

namespace sinklab {

Mlp::Mlp(ParameterStore& store, std::string prefix, int width, int hidden, Activation activation, bool bias, InitSpec init)
    : Module(store, std::move(prefix)),
      activation_(activation),
      fc1_(store, child_prefix("fc1"), width, hidden, bias, init),
      fc2_(store, child_prefix("fc2"), hidden, width, bias, init) {
  add_child(fc1_);
  add_child(fc2_);
}

Tensor Mlp::forward(Graph& g, const Tensor& x) const {
  Tensor h = fc1_.forward(g, x);
  switch (activation_) {
    case Activation::gelu: h = gelu(g, h); break;
    case Activation::relu: h = relu(g, h); break;
    case Activation::gelu_tanh: h = gelu_tanh(g, h); break;
  }
  return fc2_.forward(g, h);
}

}  // namespace sinklab
