#include "core/ops/losses.h"

#include <stdexcept>
#include <string>

#include "core/kernels/losses.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

kernels::ElementwiseLayout pair_layout(const Tensor& a, const Tensor& b) {
  return kernels::binary_layout(a.shape(), a.shape(), a.strides(), b.shape(), b.strides());
}

void mse_loss_backward(const Node& n) {
  const Tensor& p = n.inputs[0];
  const Tensor& t = n.inputs[1];
  kernels::mse_loss_backward(p.data(), t.data(), n.output.grad()[0], p.grad(), t.grad(), pair_layout(p, t));
}

struct CrossEntropySaved {
  const int32_t* targets;  // the caller's, read again in backward
  const float* lse;        // arena: log-sum-exp per row
  int64_t rows, cols;
};

void cross_entropy_backward(const Node& n) {
  const Tensor& logits = n.inputs[0];
  if (!logits.grad()) return;
  const auto& s = n.payload<CrossEntropySaved>();
  kernels::cross_entropy_backward(logits.data(), s.targets, s.lse, n.output.grad()[0], logits.grad(), s.rows, s.cols);
}

void check_pair(const char* op, const Tensor& pred, const Tensor& target) {
  op_checks::require_defined(op, "pred", pred);
  op_checks::require_defined(op, "target", target);
  op_checks::require_same_shape(op, pred, target);
}

}  // namespace

Tensor mse_loss(Graph& g, const Tensor& pred, const Tensor& target) {
  check_pair("mse_loss", pred, target);
  if (pred.numel() == 0) op_checks::fail("mse_loss", "inputs " + pred.shape().str() + " are empty");
  Tensor y = g.new_tensor(Shape{1}, g.needs_grad({pred, target}));
  y.data()[0] = kernels::mse_loss_forward(pred.data(), target.data(), pair_layout(pred, target));
  if (y.requires_grad()) {
    Node n;
    n.backward = mse_loss_backward;
    n.op = "mse_loss";
    n.inputs = {pred, target};
    n.output = y;
    g.record(n);
  }
  return y;
}

Tensor cross_entropy(Graph& g, const Tensor& logits, const int32_t* targets) {
  op_checks::require_contiguous("cross_entropy", "logits", logits);
  if (logits.rank() != 2 || logits.dim(0) == 0 || logits.dim(1) == 0)
    op_checks::fail("cross_entropy", "logits must be a non-empty [N, V], got " + logits.shape().str());
  const int64_t rows = logits.dim(0), cols = logits.dim(1);
  if (!targets) op_checks::fail("cross_entropy", "targets pointer is null");
  for (int64_t r = 0; r < rows; ++r)
    if ((targets[r] < 0 && targets[r] != kernels::kIgnoredTarget) || targets[r] >= cols)
      throw std::range_error("cross_entropy: target " + std::to_string(targets[r]) + " of row " + std::to_string(r) +
                             " is out of range for " + std::to_string(cols) + " classes");
  Tensor y = g.new_tensor(Shape{1}, g.needs_grad({logits}));
  float* lse = g.scratch(static_cast<size_t>(rows));
  y.data()[0] = kernels::cross_entropy_forward(logits.data(), targets, lse, rows, cols);
  if (y.requires_grad()) {
    Node n;
    n.backward = cross_entropy_backward;
    n.op = "cross_entropy";
    n.inputs = {logits};
    n.output = y;
    n.set_payload(CrossEntropySaved{targets, lse, rows, cols});
    g.record(n);
  }
  return y;
}

float max_abs_error(const Tensor& pred, const Tensor& target) {
  check_pair("max_abs_error", pred, target);
  return kernels::max_abs_error_forward(pred.data(), target.data(), pair_layout(pred, target));
}

}  // namespace sinklab
