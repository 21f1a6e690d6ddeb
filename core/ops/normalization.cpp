#include "core/ops/normalization.h"

#include <cmath>
#include <string>
#include <utility>

#include "core/kernels/normalization.h"
#include "core/ops/op_checks.h"

namespace sinklab {
namespace {

// Both norms work on x viewed as [rows, cols]; the statistics live in the arena.
struct LayerNormSaved {
  const float* stats;  // mean[rows] then rstd[rows]
  int64_t rows, cols;
};
struct RmsNormSaved {
  const float* rstd;  // [rows]
  int64_t rows, cols;
};

// node.inputs = {x, weight, bias}
void layer_norm_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const Tensor& w = n.inputs[1];
  const Tensor& b = n.inputs[2];
  const auto& s = n.payload<LayerNormSaved>();
  kernels::layer_norm_backward(x.data(), w.data(), s.stats, s.stats + s.rows, n.output.grad(), x.grad(), w.grad(),
                               b.grad(), s.rows, s.cols);
}

// node.inputs = {x, weight}
void rms_norm_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const Tensor& w = n.inputs[1];
  const auto& s = n.payload<RmsNormSaved>();
  kernels::rms_norm_backward(x.data(), w.data(), s.rstd, n.output.grad(), x.grad(), w.grad(), s.rows, s.cols);
}

// Checks x and returns its [rows, cols] view of the last axis.
std::pair<int64_t, int64_t> rows_cols(const char* op, const Tensor& x, float eps) {
  op_checks::require_contiguous(op, "x", x);
  if (x.rank() == 0 || x.dim(-1) == 0) op_checks::fail(op, "needs a non-empty last axis, got " + x.shape().str());
  if (!(eps >= 0.0f) || !std::isfinite(eps))
    op_checks::fail(op, "eps must be >= 0 and finite, got " + std::to_string(eps));
  return {x.numel() / x.dim(-1), x.dim(-1)};
}

}  // namespace

Tensor layer_norm(Graph& g, const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
  const auto [rows, cols] = rows_cols("layer_norm", x, eps);
  op_checks::require_vector_or_undefined("layer_norm", "weight", weight, cols);
  op_checks::require_vector_or_undefined("layer_norm", "bias", bias, cols);
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x, weight, bias}));
  float* stats = g.scratch(static_cast<size_t>(2 * rows));
  kernels::layer_norm_forward(x.data(), weight.data(), bias.data(), y.data(), stats, stats + rows, rows, cols, eps);
  if (y.requires_grad()) {
    Node n;
    n.backward = layer_norm_backward;
    n.op = "layer_norm";
    n.inputs = {x, weight, bias};
    n.output = y;
    n.set_payload(LayerNormSaved{stats, rows, cols});
    g.record(n);
  }
  return y;
}

Tensor rms_norm(Graph& g, const Tensor& x, const Tensor& weight, float eps) {
  const auto [rows, cols] = rows_cols("rms_norm", x, eps);
  op_checks::require_vector_or_undefined("rms_norm", "weight", weight, cols);
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x, weight}));
  float* rstd = g.scratch(static_cast<size_t>(rows));
  kernels::rms_norm_forward(x.data(), weight.data(), y.data(), rstd, rows, cols, eps);
  if (y.requires_grad()) {
    Node n;
    n.backward = rms_norm_backward;
    n.op = "rms_norm";
    n.inputs = {x, weight};
    n.output = y;
    n.set_payload(RmsNormSaved{rstd, rows, cols});
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
