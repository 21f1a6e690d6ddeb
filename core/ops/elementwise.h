#pragma once
// Elementwise ops with autodiff. Binary ops broadcast like NumPy (shapes right-aligned, a dim of 1
// stretches; up to rank 4); the gradient of a broadcast input is summed over its broadcast axes.
// Inputs may be any strided view (transpose, slice, permute); outputs are contiguous.
#include "core/graph.h"

namespace sinklab {

Tensor add(Graph& g, const Tensor& a, const Tensor& b);
Tensor sub(Graph& g, const Tensor& a, const Tensor& b);
Tensor mul(Graph& g, const Tensor& a, const Tensor& b);
Tensor div(Graph& g, const Tensor& a, const Tensor& b);

Tensor add_scalar(Graph& g, const Tensor& x, float c);  // x + c
Tensor mul_scalar(Graph& g, const Tensor& x, float c);  // c * x
// x^p: any x for an integer p; otherwise every x must be > 0 (std::range_error naming the entry).
Tensor pow_scalar(Graph& g, const Tensor& x, float p);
Tensor neg(Graph& g, const Tensor& x);
// (A contiguous copy of a view is contiguous() in core/ops/layout_op.h.)

}  // namespace sinklab
