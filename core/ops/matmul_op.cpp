#include "core/ops/matmul_op.h"

#include <algorithm>
#include <stdexcept>

#include "core/kernels/matmul.h"
#include "core/kernels/matmul_bf16.h"

namespace sinklab {
namespace {

using kernels::MatmulOperand;
using kernels::transposed_view;

// A tensor of rank 2..4 viewed as [b0, b1, rows, cols]; missing leading dims have size 1, stride 0.
MatmulOperand operand(const Tensor& t) {
  MatmulOperand op{{1, 1, 1, 1}, {0, 0, 0, 0}};
  const int pad = 4 - t.rank();
  for (int d = 0; d < t.rank(); ++d) {
    op.dims[static_cast<size_t>(pad + d)] = t.dim(d);
    op.strides[static_cast<size_t>(pad + d)] = t.stride(d);
  }
  for (size_t d = 0; d < 2; ++d)
    if (op.dims[d] == 1) op.strides[d] = 0;
  return op;
}

// dst (+)= alpha * x * y in the given precision (the kernels handle destinations with transposed
// layouts). Gradients add into dst, except into a buffer the graph marked fresh (Node::fresh_grad): then
// they overwrite.
void product_into(MatmulPrecision precision, const float* x, const MatmulOperand& xl, const float* y,
                  const MatmulOperand& yl, float* dst, const MatmulOperand& dl, float alpha, bool overwrite) {
  if (precision == MatmulPrecision::bf16)
    kernels::matmul_bf16(x, xl, y, yl, dst, dl, /*accumulate=*/!overwrite, alpha);
  else
    kernels::matmul(x, xl, y, yl, dst, dl, /*accumulate=*/!overwrite, alpha);
}

// True when the batch and row dims of `op` collapse into one evenly strided row dim.
bool rows_mergeable(const MatmulOperand& op) {
  const bool b1_ok = op.dims[1] == 1 || op.strides[1] == op.dims[2] * op.strides[2];
  const bool b0_ok = op.dims[0] == 1 || op.strides[0] == op.dims[1] * op.dims[2] * op.strides[2];
  return b1_ok && b0_ok;
}

MatmulOperand merge_rows(const MatmulOperand& op) {
  return {{1, 1, op.dims[0] * op.dims[1] * op.dims[2], op.dims[3]}, {0, 0, op.strides[2], op.strides[3]}};
}

bool is_unbatched(const MatmulOperand& op) { return op.dims[0] == 1 && op.dims[1] == 1; }

// grad_b (+)= a^T * grad_c summed over every batch index that b broadcasts over.
void accumulate_weight_grad(MatmulPrecision precision, const Tensor& a, const Tensor& b, const Tensor& c, float alpha,
                            bool overwrite) {
  MatmulOperand al = operand(a), bl = operand(b.transpose(-2, -1)), cl = operand(c);
  // b^T [.., N, K] (+)= c^T [.., N, M] x a [.., M, K] keeps the destination's k index contiguous
  // for the usual row-major weight.
  const bool broadcast0 = bl.dims[0] == 1 && al.dims[0] > 1;
  const bool broadcast1 = bl.dims[1] == 1 && al.dims[1] > 1;
  if (!broadcast0 && !broadcast1) {
    product_into(precision, c.grad(), transposed_view(cl), a.data(), al, b.grad(), bl, alpha, overwrite);
    return;
  }
  if (is_unbatched(bl) && rows_mergeable(al) && rows_mergeable(cl)) {  // e.g. a Linear weight over [B, T, C]
    product_into(precision, c.grad(), transposed_view(merge_rows(cl)), a.data(), merge_rows(al), b.grad(), bl, alpha,
                 overwrite);
    return;
  }
  // General fallback: one product per broadcast batch index.
  for (int64_t i0 = 0; i0 < al.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < al.dims[1]; ++i1) {
      MatmulOperand a1 = al, c1 = cl, b1 = bl;
      a1.dims[0] = a1.dims[1] = c1.dims[0] = c1.dims[1] = b1.dims[0] = b1.dims[1] = 1;
      const float* ap = a.data() + i0 * al.strides[0] + i1 * al.strides[1];
      const float* cp = c.grad() + i0 * cl.strides[0] + i1 * cl.strides[1];
      float* bp = b.grad() + (broadcast0 ? 0 : i0 * bl.strides[0]) + (broadcast1 ? 0 : i1 * bl.strides[1]);
      product_into(precision, cp, transposed_view(c1), ap, a1, bp, b1, alpha, overwrite && i0 == 0 && i1 == 0);
    }
}

// grad_a (+)= grad_c x b^T, summed over every batch index that a broadcasts over (one product each).
void accumulate_broadcast_input_grad(MatmulPrecision precision, const Tensor& a, const Tensor& b, const Tensor& c,
                                     float alpha, bool overwrite) {
  const MatmulOperand al = operand(a), bl = operand(b), cl = operand(c);
  MatmulOperand a1 = al, b1 = bl, c1 = cl;
  a1.dims[0] = a1.dims[1] = b1.dims[0] = b1.dims[1] = c1.dims[0] = c1.dims[1] = 1;
  for (int64_t i0 = 0; i0 < cl.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < cl.dims[1]; ++i1) {
      const float* cp = c.grad() + i0 * cl.strides[0] + i1 * cl.strides[1];
      const float* bp = b.data() + i0 * bl.strides[0] + i1 * bl.strides[1];
      float* ap = a.grad() + i0 * al.strides[0] + i1 * al.strides[1];  // stride 0 where a broadcasts
      product_into(precision, cp, c1, bp, transposed_view(b1), ap, a1, alpha, overwrite && i0 == 0 && i1 == 0);
    }
}

bool broadcasts_over(const MatmulOperand& x, const MatmulOperand& y) {
  return (x.dims[0] == 1 && y.dims[0] > 1) || (x.dims[1] == 1 && y.dims[1] > 1);
}

struct MatmulSaved {
  float alpha;                // c = alpha * a b
  MatmulPrecision precision;  // the forward's: the backward computes in it too
};

void matmul_backward(const Node& n) {
  const Tensor& a = n.inputs[0];
  const Tensor& b = n.inputs[1];
  const Tensor& c = n.output;
  const float alpha = n.payload<MatmulSaved>().alpha;
  const MatmulPrecision precision = n.payload<MatmulSaved>().precision;
  // grad_a [.., M, K] (+)= grad_c [.., M, N] x b^T [.., N, K]
  if (a.requires_grad()) {
    const MatmulOperand al = operand(a), bl = operand(b), cl = operand(c);
    if (broadcasts_over(al, cl))
      accumulate_broadcast_input_grad(precision, a, b, c, alpha, n.fresh_grad[0]);
    else if (is_unbatched(bl) && rows_mergeable(al) && rows_mergeable(cl))
      product_into(precision, c.grad(), merge_rows(cl), b.data(), transposed_view(bl), a.grad(), merge_rows(al),
                   alpha, n.fresh_grad[0]);
    else
      product_into(precision, c.grad(), cl, b.data(), transposed_view(bl), a.grad(), al, alpha, n.fresh_grad[0]);
  }
  if (b.requires_grad()) accumulate_weight_grad(precision, a, b, c, alpha, n.fresh_grad[1]);
}

// a [G, M, K], b [G, K, N], c [M, N]
void matmul_sum_over_batch_backward(const Node& n) {
  const Tensor& a = n.inputs[0];
  const Tensor& b = n.inputs[1];
  const Tensor& c = n.output;
  const MatmulPrecision precision = n.payload<MatmulPrecision>();
  const MatmulOperand dc = operand(c);  // [M, N], broadcast over g by the kernel (batch dims of size 1)
  if (a.requires_grad())  // grad_a[g] (+)= grad_c x b[g]^T
    product_into(precision, c.grad(), dc, b.data(), transposed_view(operand(b)), a.grad(), operand(a), 1.0f,
                 n.fresh_grad[0]);
  if (b.requires_grad())  // grad_b[g] (+)= a[g]^T x grad_c
    product_into(precision, a.data(), transposed_view(operand(a)), c.grad(), dc, b.grad(), operand(b), 1.0f,
                 n.fresh_grad[1]);
}

}  // namespace

Tensor matmul(Graph& g, const Tensor& a, const Tensor& b, float alpha) {
  if (a.rank() < 2 || b.rank() < 2)
    throw std::invalid_argument("matmul: operands need rank >= 2, got " + a.shape().str() + " x " + b.shape().str());
  const MatmulOperand al = operand(a);
  const MatmulOperand bl = operand(b);
  if (al.dims[3] != bl.dims[2])
    throw std::invalid_argument("matmul: inner dimensions differ: " + a.shape().str() + " x " + b.shape().str());
  for (size_t d = 0; d < 2; ++d)
    if (bl.dims[d] != 1 && al.dims[d] != 1 && bl.dims[d] != al.dims[d])
      throw std::invalid_argument("matmul: batch dimensions of " + b.shape().str() + " do not match " +
                                  a.shape().str());
  if (broadcasts_over(al, bl) && broadcasts_over(bl, al))
    throw std::invalid_argument("matmul: " + a.shape().str() + " x " + b.shape().str() +
                                " broadcasts both operands; only one may be shared over the other's batch");

  const Tensor& batched = broadcasts_over(al, bl) ? b : a;  // the operand whose batch dims the result has
  Shape out_shape = batched.shape();
  out_shape[out_shape.rank - 2] = a.dim(-2);
  out_shape[out_shape.rank - 1] = b.dim(-1);
  Tensor c = g.new_tensor(out_shape, g.needs_grad({a, b}));
  // A weight shared over the batch: one [batch*M, K] x [K, N] product instead of many small ones.
  const bool flat = is_unbatched(bl) && rows_mergeable(al);
  const MatmulPrecision precision = g.matmul_precision();
  product_into(precision, a.data(), flat ? merge_rows(al) : al, b.data(), bl, c.data(),
               flat ? merge_rows(operand(c)) : operand(c), alpha, /*overwrite=*/true);

  if (c.requires_grad()) {
    Node n;
    n.backward = matmul_backward;
    n.op = "matmul";
    n.overwrites_fresh_grads = true;
    n.inputs = {a, b};
    n.output = c;
    n.set_payload(MatmulSaved{alpha, precision});
    g.record(n);
  }
  return c;
}

Tensor matmul_sum_over_batch(Graph& g, const Tensor& a, const Tensor& b) {
  if (a.rank() != 3 || b.rank() != 3 || a.dim(0) != b.dim(0) || a.dim(2) != b.dim(1))
    throw std::invalid_argument("matmul_sum_over_batch: expected a [G, M, K] and b [G, K, N], got " + a.shape().str() +
                                " x " + b.shape().str());
  Tensor c = g.new_tensor(Shape{a.dim(1), b.dim(2)}, g.needs_grad({a, b}));
  const MatmulOperand al = operand(a), bl = operand(b), cl = operand(c);
  // One product per g, the first overwriting c, the others adding (oneDNN's sum post-op).
  const MatmulPrecision precision = g.matmul_precision();
  for (int64_t i = 0; i < a.dim(0); ++i) {
    MatmulOperand a1 = al, b1 = bl;
    a1.dims[1] = b1.dims[1] = 1;
    product_into(precision, a.data() + i * al.strides[1], a1, b.data() + i * bl.strides[1], b1, c.data(), cl, 1.0f,
                 /*overwrite=*/i == 0);
  }
  if (a.dim(0) == 0) std::fill_n(c.data(), c.numel(), 0.0f);

  if (c.requires_grad()) {
    Node n;
    n.backward = matmul_sum_over_batch_backward;
    n.op = "matmul_sum_over_batch";
    n.overwrites_fresh_grads = true;
    n.inputs = {a, b};
    n.output = c;
    n.set_payload(precision);
    g.record(n);
  }
  return c;
}

}  // namespace sinklab
