#pragma once
// Layout changes with autodiff.
#include "core/graph.h"

namespace sinklab {

// A contiguous copy of a (possibly strided) view; the gradient flows back through the view.
// Used where a kernel needs dense rows, e.g. merging attention heads [B, H, T, d] -> [B, T, H*d].
Tensor contiguous(Graph& g, const Tensor& x);

}  // namespace sinklab
