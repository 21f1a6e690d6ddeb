#pragma once
// Argument checks shared by the op wrappers. Each throws std::invalid_argument with a message that
// starts with the op name and names the offending input and its shape.
#include <string>

#include "core/kernels/elementwise_layout.h"
#include "core/tensor.h"

namespace sinklab::op_checks {

[[noreturn]] void fail(const char* op, const std::string& what);
void require_defined(const char* op, const char* name, const Tensor& t);
// Ops that are not elementwise read rows directly; a view must be copied first (contiguous() in
// core/ops/layout_op.h).
void require_contiguous(const char* op, const char* name, const Tensor& t);
void require_same_shape(const char* op, const Tensor& a, const Tensor& b);
// An optional per-channel vector (weight, bias): undefined, or [channels].
void require_vector_or_undefined(const char* op, const char* name, const Tensor& t, int64_t channels);

// "[1, 2]": the multi-index of the row-major flat index `flat` in `shape`.
std::string index_str(const Shape& shape, int64_t flat);
// The element of t at row-major flat index `flat` (any strides).
float value_at(const Tensor& t, int64_t flat);

// The elementwise layout of one tensor read on its own.
inline kernels::ElementwiseLayout layout_of(const Tensor& t) { return kernels::unary_layout(t.shape(), t.strides()); }

}  // namespace sinklab::op_checks
