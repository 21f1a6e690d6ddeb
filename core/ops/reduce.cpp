#include "core/ops/reduce.h"

#include "core/kernels/reduce.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

// node.ints = {outer, n, inner}; node.scalars[0] = scale (1 for sum, 1/n for mean).
void reduce_backward(const Node& nd) {
  if (!nd.inputs[0].grad()) return;
  kernels::sum_backward(nd.output.grad(), nd.inputs[0].grad(), nd.ints[0], nd.ints[1], nd.ints[2], nd.scalars[0]);
}

Tensor reduce(Graph& g, const char* op, const Tensor& x, int64_t outer, int64_t n, int64_t inner, const Shape& out,
              bool is_mean) {
  if (is_mean && n == 0) op_checks::fail(op, "cannot average over an empty axis of " + x.shape().str());
  const float scale = is_mean ? 1.0f / static_cast<float>(n) : 1.0f;
  Tensor y = g.new_tensor(out, g.needs_grad({x}));
  kernels::sum_forward(x.data(), y.data(), outer, n, inner, scale);
  if (y.requires_grad()) {
    Node nd;
    nd.backward = reduce_backward;
    nd.op = op;
    nd.inputs = {x};
    nd.output = y;
    nd.ints = {outer, n, inner, 0};
    nd.scalars[0] = scale;
    g.record(nd);
  }
  return y;
}

Tensor reduce_axis(Graph& g, const char* op, const Tensor& x, int axis, bool keepdim, bool is_mean) {
  op_checks::require_contiguous(op, "x", x);
  if (x.rank() == 0) op_checks::fail(op, "cannot reduce an axis of a rank-0 tensor");
  const int a = normalize_axis(axis, x.rank(), op);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < a; ++i) outer *= x.dim(i);
  for (int i = a + 1; i < x.rank(); ++i) inner *= x.dim(i);
  Shape out;
  for (int i = 0; i < x.rank(); ++i) {
    if (i == a && !keepdim) continue;
    out[out.rank++] = i == a ? 1 : x.dim(i);
  }
  return reduce(g, op, x, outer, x.dim(a), inner, out, is_mean);
}

Tensor reduce_all(Graph& g, const char* op, const Tensor& x, bool is_mean) {
  op_checks::require_contiguous(op, "x", x);
  return reduce(g, op, x, 1, x.numel(), 1, Shape{1}, is_mean);
}

}  // namespace

Tensor sum(Graph& g, const Tensor& x, int axis, bool keepdim) { return reduce_axis(g, "sum", x, axis, keepdim, false); }
Tensor mean(Graph& g, const Tensor& x, int axis, bool keepdim) { return reduce_axis(g, "mean", x, axis, keepdim, true); }
Tensor sum_all(Graph& g, const Tensor& x) { return reduce_all(g, "sum_all", x, false); }
Tensor mean_all(Graph& g, const Tensor& x) { return reduce_all(g, "mean_all", x, true); }

}  // namespace sinklab
