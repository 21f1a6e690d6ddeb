#include "core/ops/unary.h"

#include "core/kernels/unary.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

using kernels::ElementwiseLayout;
using ForwardKernel = void (*)(const float*, float*, const ElementwiseLayout&);
using BackwardKernel = void (*)(const float*, const float*, const float*, float*, const ElementwiseLayout&);

// One backward function per kernel, instantiated from the template: a plain function pointer.
template <BackwardKernel Kernel>
void unary_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  Kernel(x.data(), n.output.data(), n.output.grad(), x.grad(), op_checks::layout_of(x));
}

template <ForwardKernel Forward, BackwardKernel Backward>
Tensor unary(Graph& g, const char* op, const Tensor& x) {
  op_checks::require_defined(op, "x", x);
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  Forward(x.data(), y.data(), op_checks::layout_of(x));
  if (y.requires_grad()) {
    Node n;
    n.backward = unary_backward<Backward>;
    n.op = op;
    n.inputs = {x};
    n.output = y;
    g.record(n);
  }
  return y;
}

}  // namespace

Tensor exp(Graph& g, const Tensor& x) { return unary<kernels::exp_forward, kernels::exp_backward>(g, "exp", x); }
Tensor log(Graph& g, const Tensor& x) { return unary<kernels::log_forward, kernels::log_backward>(g, "log", x); }
Tensor tanh(Graph& g, const Tensor& x) { return unary<kernels::tanh_forward, kernels::tanh_backward>(g, "tanh", x); }
Tensor sigmoid(Graph& g, const Tensor& x) {
  return unary<kernels::sigmoid_forward, kernels::sigmoid_backward>(g, "sigmoid", x);
}
Tensor relu(Graph& g, const Tensor& x) { return unary<kernels::relu_forward, kernels::relu_backward>(g, "relu", x); }
Tensor gelu(Graph& g, const Tensor& x) { return unary<kernels::gelu_forward, kernels::gelu_backward>(g, "gelu", x); }
Tensor gelu_tanh(Graph& g, const Tensor& x) {
  return unary<kernels::gelu_tanh_forward, kernels::gelu_tanh_backward>(g, "gelu_tanh", x);
}

}  // namespace sinklab
