#pragma once
// Losses with autodiff (each returns a [1] tensor to seed backward from), and the stop-rule metric.
#include <cstdint>

#include "core/graph.h"

namespace sinklab {

// mean((pred - target)^2) over all entries; pred and target have the same shape (no broadcasting:
// a silent broadcast here would hide a data bug) and may be strided views. Both get gradients if tracked.
Tensor mse_loss(Graph& g, const Tensor& pred, const Tensor& target);

// logits: [N, V] contiguous; targets: N class ids in [0, V), or -1 for a row that is not scored
// (caller-owned, valid until backward has run). Mean over scored rows of -log softmax(logits)[target],
// via a stable log-sum-exp (0 with no gradient when no row is scored). Any other id throws
// std::range_error naming the row.
Tensor cross_entropy(Graph& g, const Tensor& logits, const int32_t* targets);

// max |pred - target| over all entries (same shape, any strides); no graph, no gradient. NaN when any
// entry is NaN, so a diverged run never passes a "max error < tol" stop rule.
float max_abs_error(const Tensor& pred, const Tensor& target);

}  // namespace sinklab
