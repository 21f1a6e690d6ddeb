#pragma once
// Reductions with autodiff. Inputs must be contiguous (copy a view with contiguous(g, x), core/ops/layout_op.h).
#include "core/graph.h"

namespace sinklab {

// Sum / mean over one axis (negative counts from the end). keepdim keeps it as size 1.
// mean over an empty axis is an error (it has no value).
Tensor sum(Graph& g, const Tensor& x, int axis, bool keepdim = false);
Tensor mean(Graph& g, const Tensor& x, int axis, bool keepdim = false);
// Over all elements, as a [1] tensor (a loss can be seeded from it).
Tensor sum_all(Graph& g, const Tensor& x);
Tensor mean_all(Graph& g, const Tensor& x);

}  // namespace sinklab
