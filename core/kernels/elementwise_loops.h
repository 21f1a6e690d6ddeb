#pragma once
// The loops over an ElementwiseLayout (core/kernels/elementwise_layout.h) that the elementwise, unary and
// loss kernels are written with: templates only, instantiated with each kernel's functor. The kernels
// are compiled once per ISA level (core/cpu/isa_dispatch.h): include this header after
// SINKLAB_ISA_BEGIN, so that the loops are compiled at the level and the functors inline into them (an
// instantiation names its functor, which lives in the level's namespace, so copies never merge).
#include <cstdint>

#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {

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
void accumulate_grad(const float* self, const float* other, const float* dy, float* dx, const ElementwiseLayout& l,
                     G g) {
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
      strided_row(len, l.a[3], l.b[3],
                  [&](int64_t k, int64_t is, int64_t io) { xr[is] += g(sr[is], orow[io], dr[k]); });
    }
  });
}

}  // namespace sinklab::kernels
