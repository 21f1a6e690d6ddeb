#include "core/ops/layout_op.h"

#include "core/kernels/elementwise.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

void contiguous_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  kernels::copy_backward(n.output.grad(), x.grad(), op_checks::layout_of(x));
}

}  // namespace

Tensor contiguous(Graph& g, const Tensor& x) {
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  kernels::copy_forward(x.data(), y.data(), op_checks::layout_of(x));
  if (y.requires_grad()) {
    Node n;
    n.backward = contiguous_backward;
    n.op = "contiguous";
    n.inputs = {x};
    n.output = y;
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
