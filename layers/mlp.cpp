#include "layers/mlp.h"

#include "core/ops/elementwise.h"
#include "core/ops/unary.h"

namespace sinklab {

Mlp::Mlp(ParameterStore& store, std::string prefix, int width, int hidden, Activation activation, bool bias,
         InitSpec init, bool gated)
    : Module(store, std::move(prefix)),
      activation_(activation),
      fc1_(store, child_prefix("fc1"), width, hidden, bias, init),
      fc2_(store, child_prefix("fc2"), hidden, width, bias, init) {
  add_child(fc1_);
  add_child(fc2_);
  if (gated) {
    up_ = std::make_unique<Linear>(store, child_prefix("up"), width, hidden, bias, init);
    add_child(*up_);
  }
}

Tensor Mlp::forward(Graph& g, const Tensor& x) const {
  Tensor h = fc1_.forward(g, x);
  switch (activation_) {
    case Activation::gelu: h = gelu(g, h); break;
    case Activation::relu: h = relu(g, h); break;
    case Activation::gelu_tanh: h = gelu_tanh(g, h); break;
    case Activation::silu: h = mul(g, h, sigmoid(g, h)); break;  // x * sigmoid(x)
  }
  if (up_) h = mul(g, h, up_->forward(g, x));
  return fc2_.forward(g, h);
}

}  // namespace sinklab
