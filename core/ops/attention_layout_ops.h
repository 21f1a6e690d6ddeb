#pragma once
// Attention-specific layout ops with autodiff: grouped-query heads and the sliding-window mask.
#include "core/graph.h"

namespace sinklab {

// x [K, ...] (contiguous; head-major key or value heads) -> [K * groups, ...] where row h is x[h / groups]:
// grouped-query attention's kv head for every query head. The gradient of x[k] sums its group's rows.
Tensor repeat_heads(Graph& g, const Tensor& x, int64_t groups);

// scores [G0, G1, T, T] (contiguous) -> a copy with -inf at every key j <= i - window of query i (keys
// after the query are left alone: the normalizer's causal mask drops them). Masked entries get no
// gradient. window >= 1.
Tensor mask_outside_window(Graph& g, const Tensor& scores, int64_t window);

}  // namespace sinklab
