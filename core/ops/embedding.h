#pragma once
// Embedding lookup with autodiff (the gradient scatter-adds into the table's gradient).
#include <cstdint>

#include "core/graph.h"

namespace sinklab {

// table: [V, C] contiguous; ids: ids_shape.numel() ids in [0, V), ids_shape of rank <= 3.
// Returns [ids_shape..., C]. The ids are caller-owned and must stay valid until backward has run
// (the tape keeps the pointer). An id outside [0, V) throws std::range_error naming it and where.
Tensor embedding(Graph& g, const Tensor& table, const int32_t* ids, const Shape& ids_shape);

}  // namespace sinklab
