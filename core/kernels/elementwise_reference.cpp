#include "core/kernels/elementwise_reference.h"

#include <cmath>

namespace sinklab::kernels {
namespace {

int64_t offset(const ElementwiseLayout& l, const std::array<int64_t, kMaxRank>& strides, int64_t i) {
  int64_t off = 0;
  for (int d = kMaxRank - 1; d >= 0; --d) {
    const auto u = static_cast<size_t>(d);
    off += (i % l.dims[u]) * strides[u];
    i /= l.dims[u];
  }
  return off;
}

template <class F>
void binary(const float* a, const float* b, float* y, const ElementwiseLayout& l, F f) {
  for (int64_t i = 0; i < l.numel(); ++i)
    y[i] = static_cast<float>(f(static_cast<double>(a[offset_a(l, i)]), static_cast<double>(b[offset_b(l, i)])));
}

template <class F>
void unary(const float* x, float* y, const ElementwiseLayout& l, F f) {
  for (int64_t i = 0; i < l.numel(); ++i) y[i] = static_cast<float>(f(static_cast<double>(x[offset_a(l, i)])));
}

}  // namespace

int64_t offset_a(const ElementwiseLayout& l, int64_t i) { return offset(l, l.a, i); }
int64_t offset_b(const ElementwiseLayout& l, int64_t i) { return offset(l, l.b, i); }

void add_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  binary(a, b, y, l, [](double u, double v) { return u + v; });
}
void sub_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  binary(a, b, y, l, [](double u, double v) { return u - v; });
}
void mul_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  binary(a, b, y, l, [](double u, double v) { return u * v; });
}
void div_forward_reference(const float* a, const float* b, float* y, const ElementwiseLayout& l) {
  binary(a, b, y, l, [](double u, double v) { return u / v; });
}

void add_backward_reference(const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  for (int64_t i = 0; i < l.numel(); ++i) {
    if (da) da[offset_a(l, i)] += dy[i];
    if (db) db[offset_b(l, i)] += dy[i];
  }
}

void sub_backward_reference(const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  for (int64_t i = 0; i < l.numel(); ++i) {
    if (da) da[offset_a(l, i)] += dy[i];
    if (db) db[offset_b(l, i)] -= dy[i];
  }
}

void mul_backward_reference(const float* a, const float* b, const float* dy, float* da, float* db,
                            const ElementwiseLayout& l) {
  for (int64_t i = 0; i < l.numel(); ++i) {
    const int64_t oa = offset_a(l, i), ob = offset_b(l, i);
    if (da) da[oa] += dy[i] * b[ob];
    if (db) db[ob] += dy[i] * a[oa];
  }
}

void div_backward_reference(const float* a, const float* b, const float* dy, float* da, float* db,
                            const ElementwiseLayout& l) {
  for (int64_t i = 0; i < l.numel(); ++i) {
    const int64_t oa = offset_a(l, i), ob = offset_b(l, i);
    const double bv = b[ob];
    if (da) da[oa] += static_cast<float>(dy[i] / bv);
    if (db) db[ob] += static_cast<float>(-dy[i] * static_cast<double>(a[oa]) / (bv * bv));
  }
}

void add_scalar_forward_reference(const float* x, float c, float* y, const ElementwiseLayout& l) {
  unary(x, y, l, [c](double v) { return v + c; });
}
void mul_scalar_forward_reference(const float* x, float c, float* y, const ElementwiseLayout& l) {
  unary(x, y, l, [c](double v) { return v * c; });
}
void pow_scalar_forward_reference(const float* x, float p, float* y, const ElementwiseLayout& l) {
  unary(x, y, l, [p](double v) { return std::pow(v, static_cast<double>(p)); });
}
void neg_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  unary(x, y, l, [](double v) { return -v; });
}
void copy_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  unary(x, y, l, [](double v) { return v; });
}

void mul_scalar_backward_reference(const float* dy, float c, float* dx, const ElementwiseLayout& l) {
  for (int64_t i = 0; i < l.numel(); ++i) dx[offset_a(l, i)] += c * dy[i];
}

void pow_scalar_backward_reference(const float* x, float p, const float* dy, float* dx, const ElementwiseLayout& l) {
  const double pd = p;
  for (int64_t i = 0; i < l.numel(); ++i) {
    const int64_t o = offset_a(l, i);
    dx[o] += static_cast<float>(dy[i] * pd * std::pow(static_cast<double>(x[o]), pd - 1.0));
  }
}

}  // namespace sinklab::kernels
