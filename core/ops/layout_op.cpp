#include "core/ops/layout_op.h"

#include <algorithm>

namespace sinklab {
namespace {

// Visits every element of a rank <= 4 view in row-major order: f(view_offset, dense_index).
template <typename F>
void for_each_element(const Tensor& v, F&& f) {
  int64_t dims[4] = {1, 1, 1, 1}, strides[4] = {0, 0, 0, 0};
  const int pad = 4 - v.rank();
  for (int d = 0; d < v.rank(); ++d) {
    dims[pad + d] = v.dim(d);
    strides[pad + d] = v.stride(d);
  }
  int64_t dense = 0;
  for (int64_t a = 0; a < dims[0]; ++a)
    for (int64_t b = 0; b < dims[1]; ++b)
      for (int64_t c = 0; c < dims[2]; ++c) {
        const int64_t base = a * strides[0] + b * strides[1] + c * strides[2];
        for (int64_t d = 0; d < dims[3]; ++d) f(base + d * strides[3], dense++);
      }
}

void contiguous_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const float* dy = n.output.grad();
  float* dx = x.grad();
  for_each_element(x, [&](int64_t off, int64_t i) { dx[off] += dy[i]; });
}

}  // namespace

Tensor contiguous(Graph& g, const Tensor& x) {
  Tensor y = g.new_tensor(x.shape(), g.needs_grad({x}));
  if (x.is_contiguous()) {
    std::copy_n(x.data(), x.numel(), y.data());
  } else {
    const float* src = x.data();
    float* dst = y.data();
    for_each_element(x, [&](int64_t off, int64_t i) { dst[i] = src[off]; });
  }
  if (y.requires_grad()) {
    Node n;
    n.backward = contiguous_backward;
    n.op = "contiguous";
    n.inputs = {x};
    n.output = y;
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
