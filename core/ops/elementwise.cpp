#include "core/ops/elementwise.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/kernels/elementwise.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

using kernels::ElementwiseLayout;
using op_checks::layout_of;
using BinaryKernel = void (*)(const float*, const float*, float*, const ElementwiseLayout&);

ElementwiseLayout binary_node_layout(const Node& n) {
  const Tensor& a = n.inputs[0];
  const Tensor& b = n.inputs[1];
  return kernels::binary_layout(n.output.shape(), a.shape(), a.strides(), b.shape(), b.strides());
}

void add_backward(const Node& n) {
  kernels::add_backward(n.output.grad(), n.inputs[0].grad(), n.inputs[1].grad(), binary_node_layout(n));
}
void sub_backward(const Node& n) {
  kernels::sub_backward(n.output.grad(), n.inputs[0].grad(), n.inputs[1].grad(), binary_node_layout(n));
}
void mul_backward(const Node& n) {
  kernels::mul_backward(n.inputs[0].data(), n.inputs[1].data(), n.output.grad(), n.inputs[0].grad(),
                        n.inputs[1].grad(), binary_node_layout(n));
}
void div_backward(const Node& n) {
  kernels::div_backward(n.inputs[0].data(), n.inputs[1].data(), n.output.grad(), n.inputs[0].grad(),
                        n.inputs[1].grad(), binary_node_layout(n));
}

Tensor binary(Graph& g, const char* op, const Tensor& a, const Tensor& b, BinaryKernel forward, BackwardFn backward) {
  op_checks::require_defined(op, "a", a);
  op_checks::require_defined(op, "b", b);
  Shape out;
  if (!kernels::broadcast_shape(a.shape(), b.shape(), out))
    op_checks::fail(op, "shapes " + a.shape().str() + " and " + b.shape().str() + " are not broadcastable");
  Tensor y = g.new_tensor(out, g.needs_grad({a, b}));
  forward(a.data(), b.data(), y.data(), kernels::binary_layout(out, a.shape(), a.strides(), b.shape(), b.strides()));
  if (y.requires_grad()) {
    Node n;
    n.backward = backward;
    n.op = op;
    n.inputs = {a, b};
    n.output = y;
    g.record(n);
  }
  return y;
}

// The linear scalar ops (add_scalar, mul_scalar, neg) pass slope * dy back; pow_scalar reads its
// exponent from `constant`.
struct ScalarOpSaved {
  float constant, slope;
};

void scale_backward(const Node& n) {
  kernels::mul_scalar_backward(n.output.grad(), n.payload<ScalarOpSaved>().slope, n.inputs[0].grad(),
                               layout_of(n.inputs[0]));
}
void pow_backward(const Node& n) {
  kernels::pow_scalar_backward(n.inputs[0].data(), n.payload<ScalarOpSaved>().constant, n.output.grad(),
                               n.inputs[0].grad(), layout_of(n.inputs[0]));
}

// Records the node of a one-input op when its output tracks a gradient.
Tensor finish_unary(Graph& g, const char* op, const Tensor& x, const Tensor& y, float c, float slope,
                    BackwardFn backward) {
  if (y.requires_grad()) {
    Node n;
    n.backward = backward;
    n.op = op;
    n.inputs = {x};
    n.output = y;
    n.set_payload(ScalarOpSaved{c, slope});
    g.record(n);
  }
  return y;
}

Tensor new_like(Graph& g, const char* op, const Tensor& x) {
  op_checks::require_defined(op, "x", x);
  return g.new_tensor(x.shape(), g.needs_grad({x}));
}

bool is_integer(float p) { return std::isfinite(p) && std::nearbyint(p) == p; }

}  // namespace

Tensor add(Graph& g, const Tensor& a, const Tensor& b) {
  return binary(g, "add", a, b, kernels::add_forward, add_backward);
}
Tensor sub(Graph& g, const Tensor& a, const Tensor& b) {
  return binary(g, "sub", a, b, kernels::sub_forward, sub_backward);
}
Tensor mul(Graph& g, const Tensor& a, const Tensor& b) {
  return binary(g, "mul", a, b, kernels::mul_forward, mul_backward);
}
Tensor div(Graph& g, const Tensor& a, const Tensor& b) {
  return binary(g, "div", a, b, kernels::div_forward, div_backward);
}

Tensor add_scalar(Graph& g, const Tensor& x, float c) {
  Tensor y = new_like(g, "add_scalar", x);
  kernels::add_scalar_forward(x.data(), c, y.data(), layout_of(x));
  return finish_unary(g, "add_scalar", x, y, c, 1.0f, scale_backward);
}

Tensor mul_scalar(Graph& g, const Tensor& x, float c) {
  Tensor y = new_like(g, "mul_scalar", x);
  kernels::mul_scalar_forward(x.data(), c, y.data(), layout_of(x));
  return finish_unary(g, "mul_scalar", x, y, c, c, scale_backward);
}

Tensor neg(Graph& g, const Tensor& x) {
  Tensor y = new_like(g, "neg", x);
  kernels::neg_forward(x.data(), y.data(), layout_of(x));
  return finish_unary(g, "neg", x, y, 0.0f, -1.0f, scale_backward);
}

Tensor pow_scalar(Graph& g, const Tensor& x, float p) {
  op_checks::require_defined("pow_scalar", "x", x);
  const ElementwiseLayout l = layout_of(x);
  if (!is_integer(p)) {
    // A fractional power is NaN below 0 and has an infinite slope at 0.
    const int64_t bad = kernels::first_nonpositive(x.data(), l);
    if (bad >= 0)
      throw std::range_error("pow_scalar: exponent " + std::to_string(p) + " needs inputs > 0, but x" +
                             op_checks::index_str(x.shape(), bad) + " = " +
                             std::to_string(op_checks::value_at(x, bad)) + " (x is " + x.shape().str() + ")");
  }
  Tensor y = new_like(g, "pow_scalar", x);
  kernels::pow_scalar_forward(x.data(), p, y.data(), l);
  return finish_unary(g, "pow_scalar", x, y, p, 0.0f, pow_backward);
}

}  // namespace sinklab
