#pragma once
// The iteration space of elementwise kernels: output dims padded to rank 4 (leading 1s) and, per input,
// element strides over those dims (0 on a broadcast axis). Outputs are always contiguous over `dims`.
// Inputs may be any strided view; their gradients share their strides (Tensor keeps data and grad in
// the same layout), so one stride set serves both.
//
// The builders merge adjacent dims that are laid out evenly for every operand and drop size-1 dims,
// so a contiguous [B, T, C] becomes one row of B*T*C and [B, T, C] + [C] becomes [B*T, C] with b's row
// stride 0: inner loops are long and have unit or zero stride, which the compiler vectorizes.
#include <array>
#include <utility>
#include <cstdint>

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

// Calls row(y_offset, a_offset, b_offset, length) over all of `l`, in order: each call covers `length`
// consecutive elements of the innermost dim (a long innermost dim is cut into chunks so that even one
// flat row can be spread over threads). Runs chunks in parallel only when `parallel` and the layout is
// large; the chunking does not depend on the thread count.
template <class Row>
void for_each_chunk(const ElementwiseLayout& l, bool parallel, Row&& row) {
  constexpr int64_t kChunk = 8192;
  const int64_t d1 = l.dims[1], d2 = l.dims[2], n = l.dims[3];
  const int64_t chunks_per_row = n == 0 ? 0 : (n + kChunk - 1) / kChunk;
  const int64_t tasks = l.dims[0] * d1 * d2 * chunks_per_row;
  [[maybe_unused]] const bool go_parallel = parallel && tasks > 1 && l.numel() >= kParallelMinElements;
#pragma omp parallel for schedule(static) if (go_parallel)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t r = t / chunks_per_row, c = t % chunks_per_row;
    const int64_t i2 = r % d2, i1 = (r / d2) % d1, i0 = r / (d1 * d2);
    const int64_t start = c * kChunk;
    const int64_t len = n - start < kChunk ? n - start : kChunk;
    row(r * n + start, i0 * l.a[0] + i1 * l.a[1] + i2 * l.a[2] + start * l.a[3],
        i0 * l.b[0] + i1 * l.b[1] + i2 * l.b[2] + start * l.b[3], len);
  }
}

// Runs body(k, k * sa, k * sb) for k in [0, len), with the unit/zero-stride cases spelled out so that
// the compiler sees constant strides and vectorizes them.
template <class Body>
inline void strided_row(int64_t len, int64_t sa, int64_t sb, Body&& body) {
  if (sa == 1 && sb == 1) {
    for (int64_t k = 0; k < len; ++k) body(k, k, k);
  } else if (sa == 1 && sb == 0) {
    for (int64_t k = 0; k < len; ++k) body(k, k, int64_t{0});
  } else if (sa == 0 && sb == 1) {
    for (int64_t k = 0; k < len; ++k) body(k, int64_t{0}, k);
  } else {
    for (int64_t k = 0; k < len; ++k) body(k, k * sa, k * sb);
  }
}

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

// y[k] = f(a[k]) with y contiguous; a strided by l.a.
template <class F>
void map_unary(const float* a, float* y, const ElementwiseLayout& l, F f) {
  for_each_chunk(l, true, [&](int64_t yo, int64_t ao, int64_t, int64_t len) {
    const float* ar = a + ao;
    float* yr = y + yo;
    strided_row(len, l.a[3], 0, [&](int64_t k, int64_t ia, int64_t) { yr[k] = f(ar[ia]); });
  });
}

// y[k] = f(a[k], b[k]) with y contiguous; a, b strided by l.a, l.b.
template <class F>
void map_binary(const float* a, const float* b, float* y, const ElementwiseLayout& l, F f) {
  for_each_chunk(l, true, [&](int64_t yo, int64_t ao, int64_t bo, int64_t len) {
    const float* ar = a + ao;
    const float* br = b + bo;
    float* yr = y + yo;
    strided_row(len, l.a[3], l.b[3], [&](int64_t k, int64_t ia, int64_t ib) { yr[k] = f(ar[ia], br[ib]); });
  });
}

// Gradient pass for the input `self` (strided by l.a, like its gradient dx) with a partner input
// `other` (strided by l.b): dx[k] += g(self[k], other[k], dy[k]), dy contiguous. Where self is
// broadcast (stride 0) the contributions are summed in iteration order, so results are deterministic;
// such passes run on one thread because several iterations write the same element.
template <class G>
void accumulate_grad(const float* self, const float* other, const float* dy, float* dx, const ElementwiseLayout& l, G g) {
  for_each_chunk(l, writes_distinct(l, l.a), [&](int64_t yo, int64_t so, int64_t oo, int64_t len) {
    const float* sr = self + so;
    const float* orow = other + oo;
    const float* dr = dy + yo;
    float* xr = dx + so;
    if (l.a[3] == 0) {
      float acc = 0.0f;
      strided_row(len, 0, l.b[3], [&](int64_t k, int64_t, int64_t io) { acc += g(sr[0], orow[io], dr[k]); });
      xr[0] += acc;
    } else {
      strided_row(len, l.a[3], l.b[3], [&](int64_t k, int64_t is, int64_t io) { xr[is] += g(sr[is], orow[io], dr[k]); });
    }
  });
}

}  // namespace sinklab::kernels
