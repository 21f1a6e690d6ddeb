#include "core/ops/masking.h"

#include "core/kernels/masking.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

// node.ints = {batch, t}.
void causal_mask_backward(const Node& n) {
  if (!n.inputs[0].grad()) return;
  kernels::causal_mask_backward(n.output.grad(), n.inputs[0].grad(), n.ints[0], n.ints[1]);
}

}  // namespace

Tensor causal_mask(Graph& g, const Tensor& scores, float fill) {
  op_checks::require_contiguous("causal_mask", "scores", scores);
  if (scores.rank() < 2 || scores.dim(-1) != scores.dim(-2))
    op_checks::fail("causal_mask", "scores must be [..., T, T], got " + scores.shape().str());
  const int64_t t = scores.dim(-1);
  const int64_t batch = t == 0 ? 0 : scores.numel() / (t * t);
  Tensor y = g.new_tensor(scores.shape(), g.needs_grad({scores}));
  kernels::causal_mask_forward(scores.data(), y.data(), batch, t, fill);
  if (y.requires_grad()) {
    Node n;
    n.backward = causal_mask_backward;
    n.op = "causal_mask";
    n.inputs = {scores};
    n.output = y;
    n.ints = {batch, t, 0, 0};
    n.scalars[0] = fill;
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
