#pragma once
// The iteration space of elementwise kernels: output dims padded to rank 4 (leading 1s) and, per input,
// element strides over those dims (0 on a broadcast axis). Outputs are always contiguous over `dims`.
// Inputs may be any strided view; their gradients share their strides (Tensor keeps data and grad in
// the same layout), so one stride set serves both.
//
// The builders merge adjacent dims that are laid out evenly for every operand and drop size-1 dims,
// so a contiguous [B, T, C] becomes one row of B*T*C and [B, T, C] + [C] becomes [B*T, C] with b's row
// stride 0: inner loops are long and have unit or zero stride, which the compiler vectorizes. The loops
// over a layout are core/kernels/elementwise_loops.h.
#include <array>
#include <cstdint>
#include <utility>

#include "core/shape.h"

namespace sinklab::kernels {

struct ElementwiseLayout {
  std::array<int64_t, kMaxRank> dims{1, 1, 1, 1};
  std::array<int64_t, kMaxRank> a{};  // strides of the first input (and of its gradient)
  std::array<int64_t, kMaxRank> b{};  // strides of the second input (binary ops only)
  int64_t numel() const { return dims[0] * dims[1] * dims[2] * dims[3]; }
};

// Contiguous inputs of n elements.
ElementwiseLayout flat_layout(int64_t n);
// One input of `shape` with `strides`; the output has `shape`, contiguous.
ElementwiseLayout unary_layout(const Shape& shape, const Strides& strides);
// Two inputs broadcast (NumPy rules, right-aligned) to `out`, which the caller has computed and
// checked with broadcast_shape().
ElementwiseLayout binary_layout(const Shape& out, const Shape& a, const Strides& sa, const Shape& b, const Strides& sb);

// NumPy broadcast of two shapes of rank <= 4 into `out`; false when some dims differ and neither is 1.
bool broadcast_shape(const Shape& a, const Shape& b, Shape& out);

// True when no dim of size > 1 has stride 0 in `strides`: distinct iterations write distinct elements,
// so a gradient pass over such an operand may run in parallel.
bool writes_distinct(const ElementwiseLayout& l, const std::array<int64_t, kMaxRank>& strides);

// Below this many elements a loop stays on one thread: waking OpenMP threads costs more than the work.
inline constexpr int64_t kParallelMinElements = int64_t{1} << 15;

// The same layout with the roles of the two inputs exchanged (the gradient pass for b).
inline ElementwiseLayout swapped(ElementwiseLayout l) {
  std::swap(l.a, l.b);
  return l;
}

// The same layout whose second input is read like the (contiguous) output: for backward passes that
// read the forward output y next to a strided x.
inline ElementwiseLayout with_output_as_b(ElementwiseLayout l) {
  l.b = {l.dims[1] * l.dims[2] * l.dims[3], l.dims[2] * l.dims[3], l.dims[3], 1};
  return l;
}

// The same layout reading the second input like the first: for passes that need only one input.
inline ElementwiseLayout with_same_b(ElementwiseLayout l) {
  l.b = l.a;
  return l;
}

}  // namespace sinklab::kernels
