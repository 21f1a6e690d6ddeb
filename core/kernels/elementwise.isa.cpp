#include "core/kernels/elementwise.h"

#include <algorithm>
#include <cmath>

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/elementwise.cpp calls the chosen copy.
SINKLAB_ISA_BEGIN
#include "core/kernels/elementwise_loops.h"

// Calls between these kernels name this level's copy: argument-dependent lookup also finds the public
// function of the same name in sinklab::kernels.
namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {

void add_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  map_binary(a, b, y, l, [](float u, float v) { return u + v; });
}

void sub_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  map_binary(a, b, y, l, [](float u, float v) { return u - v; });
}

void mul_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  map_binary(a, b, y, l, [](float u, float v) { return u * v; });
}

void div_forward(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  map_binary(a, b, y, l, [](float u, float v) { return u / v; });
}

void mul_scalar_backward(const float* dy, float c, float* dx, const ElementwiseLayout& l) {
  if (!dx) return;
  for_each_chunk(l, writes_distinct(l, l.a), [&](int64_t yo, int64_t xo, int64_t, int64_t len) {
    const float* dr = dy + yo;
    float* xr = dx + xo;
    if (l.a[3] == 0) {  // dx broadcast along the row
      float acc = 0.0f;
      for (int64_t k = 0; k < len; ++k) acc += dr[k];
      xr[0] += c * acc;
    } else {
      strided_row(len, l.a[3], 0, [&](int64_t k, int64_t ix, int64_t) { xr[ix] += c * dr[k]; });
    }
  });
}

void add_backward(const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  SINKLAB_ISA_NAMESPACE::mul_scalar_backward(dy, 1.0f, da, l);
  SINKLAB_ISA_NAMESPACE::mul_scalar_backward(dy, 1.0f, db, swapped(l));
}

void sub_backward(const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  SINKLAB_ISA_NAMESPACE::mul_scalar_backward(dy, 1.0f, da, l);
  SINKLAB_ISA_NAMESPACE::mul_scalar_backward(dy, -1.0f, db, swapped(l));
}

void mul_backward(const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  const auto times_other = [](float, float other, float d) { return d * other; };
  if (da) accumulate_grad(a, b, dy, da, l, times_other);
  if (db) accumulate_grad(b, a, dy, db, swapped(l), times_other);
}

void div_backward(const float* a, const float* b, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  if (da) accumulate_grad(a, b, dy, da, l, [](float, float bv, float d) { return d / bv; });
  if (db) accumulate_grad(b, a, dy, db, swapped(l), [](float bv, float av, float d) { return -d * av / (bv * bv); });
}

void add_scalar_forward(const float* x, float c, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [c](float v) { return v + c; });
}

void mul_scalar_forward(const float* x, float c, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [c](float v) { return c * v; });
}

void neg_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return -v; });
}

void copy_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return v; });
}

// The common exponents get loops without a pow() call, which would block vectorization.
void pow_scalar_forward(const float* x, float p, float* y, const ElementwiseLayout& l) {
  if (p == 2.0f) {
    map_unary(x, y, l, [](float v) { return v * v; });
  } else if (p == 1.0f) {
    SINKLAB_ISA_NAMESPACE::copy_forward(x, y, l);
  } else if (p == 0.5f) {
    map_unary(x, y, l, [](float v) { return std::sqrt(v); });
  } else if (p == -1.0f) {
    map_unary(x, y, l, [](float v) { return 1.0f / v; });
  } else {
    map_unary(x, y, l, [p](float v) { return std::pow(v, p); });
  }
}

void pow_scalar_backward(const float* x, float p, const float* dy, float* dx, const ElementwiseLayout& l) {
  if (!dx) return;
  // accumulate_grad needs a partner input; x itself serves (read with x's strides, value unused).
  if (p == 2.0f) {
    accumulate_grad(x, x, dy, dx, with_same_b(l), [](float v, float, float d) { return 2.0f * v * d; });
  } else if (p == 1.0f) {
    SINKLAB_ISA_NAMESPACE::mul_scalar_backward(dy, 1.0f, dx, l);
  } else {
    const float q = p - 1.0f;
    accumulate_grad(x, x, dy, dx, with_same_b(l), [p, q](float v, float, float d) { return d * p * std::pow(v, q); });
  }
}

int64_t first_nonpositive(const float* x, const ElementwiseLayout& l) {
  int64_t found = -1;
  for_each_chunk(l, false, [&](int64_t yo, int64_t xo, int64_t, int64_t len) {
    if (found >= 0) return;
    const float* xr = x + xo;
    for (int64_t k = 0; k < len; ++k)
      if (!(xr[k * l.a[3]] > 0.0f)) {
        found = yo + k;
        return;
      }
  });
  return found;
}

void fill_zero(float* y, int64_t n) {
  constexpr int64_t kChunk = 16384;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 1 && n >= kParallelMinElements)
  for (int64_t c = 0; c < chunks; ++c) std::fill(y + c * kChunk, y + std::min(n, (c + 1) * kChunk), 0.0f);
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
