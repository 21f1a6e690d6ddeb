#include "core/kernels/elementwise_layout.h"

namespace sinklab::kernels {
namespace {

struct Axis {
  int64_t dim, a, b;
};

// Drops size-1 axes, merges evenly laid out neighbours and right-aligns the result into four dims.
ElementwiseLayout coalesce(const std::array<Axis, kMaxRank>& axes, int count) {
  std::array<Axis, kMaxRank> kept{};
  int n = 0;
  for (int i = 0; i < count; ++i) {
    const Axis& ax = axes[static_cast<size_t>(i)];
    if (ax.dim == 1) continue;
    kept[static_cast<size_t>(n++)] = ax;
  }
  // Merge from the inside out: axis i folds into i+1 when stepping i equals stepping over all of i+1.
  std::array<Axis, kMaxRank> merged{};
  int m = 0;
  for (int i = n - 1; i >= 0; --i) {
    const Axis& outer = kept[static_cast<size_t>(i)];
    if (m > 0) {
      Axis& inner = merged[static_cast<size_t>(m - 1)];
      if (outer.dim != 0 && inner.dim != 0 && outer.a == inner.a * inner.dim && outer.b == inner.b * inner.dim) {
        inner.dim *= outer.dim;
        continue;
      }
    }
    merged[static_cast<size_t>(m++)] = outer;
  }
  ElementwiseLayout l;
  for (int j = 0; j < m; ++j) {  // merged holds axes innermost first
    const auto slot = static_cast<size_t>(kMaxRank - 1 - j);
    const Axis& ax = merged[static_cast<size_t>(j)];
    l.dims[slot] = ax.dim;
    l.a[slot] = ax.a;
    l.b[slot] = ax.b;
  }
  return l;
}

// Stride of `shape` (right-aligned to `out_rank`) along output axis i; 0 where it broadcasts.
int64_t aligned_stride(const Shape& out, int i, const Shape& shape, const Strides& strides) {
  const int axis = i - (out.rank - shape.rank);
  if (axis < 0 || (shape[axis] == 1 && out[i] != 1)) return 0;
  return strides[static_cast<size_t>(axis)];
}

}  // namespace

ElementwiseLayout flat_layout(int64_t n) {
  ElementwiseLayout l;
  l.dims[kMaxRank - 1] = n;
  l.a[kMaxRank - 1] = 1;
  l.b[kMaxRank - 1] = 1;
  return l;
}

ElementwiseLayout unary_layout(const Shape& shape, const Strides& strides) {
  std::array<Axis, kMaxRank> axes{};
  for (int i = 0; i < shape.rank; ++i) axes[static_cast<size_t>(i)] = {shape[i], strides[static_cast<size_t>(i)], 0};
  return coalesce(axes, shape.rank);
}

ElementwiseLayout binary_layout(const Shape& out, const Shape& a, const Strides& sa, const Shape& b,
                                const Strides& sb) {
  std::array<Axis, kMaxRank> axes{};
  for (int i = 0; i < out.rank; ++i)
    axes[static_cast<size_t>(i)] = {out[i], aligned_stride(out, i, a, sa), aligned_stride(out, i, b, sb)};
  return coalesce(axes, out.rank);
}

bool broadcast_shape(const Shape& a, const Shape& b, Shape& out) {
  out = Shape();
  out.rank = a.rank > b.rank ? a.rank : b.rank;
  for (int i = 0; i < out.rank; ++i) {
    const int ia = i - (out.rank - a.rank), ib = i - (out.rank - b.rank);
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

bool writes_distinct(const ElementwiseLayout& l, const std::array<int64_t, kMaxRank>& strides) {
  for (size_t i = 0; i < kMaxRank; ++i)
    if (l.dims[i] > 1 && strides[i] == 0) return false;
  return true;
}

}  // namespace sinklab::kernels
