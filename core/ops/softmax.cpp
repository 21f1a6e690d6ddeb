#include "core/ops/softmax.h"

#include <cmath>
#include <string>

#include "core/kernels/softmax.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

// node.ints = {rows, cols}; node.scalars[0] = 1 / temperature. Needs only the output.
void softmax_backward(const Node& n) {
  if (!n.inputs[0].grad()) return;
  kernels::softmax_backward(n.output.data(), n.output.grad(), n.inputs[0].grad(), n.ints[0], n.ints[1], n.scalars[0]);
}

}  // namespace

Tensor softmax(Graph& g, const Tensor& x, float temperature) {
  op_checks::require_contiguous("softmax", "x", x);
  if (x.rank() == 0) op_checks::fail("softmax", "needs an input of rank >= 1");
  if (!(temperature > 0.0f) || !std::isfinite(temperature))
    op_checks::fail("softmax", "temperature must be positive and finite, got " + std::to_string(temperature));
  const int64_t cols = x.dim(-1);
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  const float inv_t = 1.0f / temperature;
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  kernels::softmax_forward(x.data(), y.data(), rows, cols, inv_t);
  if (y.requires_grad()) {
    Node n;
    n.backward = softmax_backward;
    n.op = "softmax";
    n.inputs = {x};
    n.output = y;
    n.ints = {rows, cols, 0, 0};
    n.scalars[0] = inv_t;
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
