#include "core/shape.h"

#include <stdexcept>

namespace sinklab {

Shape::Shape(std::initializer_list<int64_t> d) {
  if (d.size() > kMaxRank)
    throw std::invalid_argument("Shape: rank " + std::to_string(d.size()) + " exceeds " + std::to_string(kMaxRank));
  for (int64_t v : d) {
    if (v < 0) throw std::invalid_argument("Shape: negative dimension");
    dims[static_cast<size_t>(rank++)] = v;
  }
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[static_cast<size_t>(i)];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string((*this)[i]);
  return s + "]";
}

Strides contiguous_strides(const Shape& shape) {
  Strides s{};
  int64_t step = 1;
  for (int i = shape.rank - 1; i >= 0; --i) {
    s[static_cast<size_t>(i)] = step;
    step *= shape[i];
  }
  return s;
}

int normalize_axis(int axis, int rank, const char* what) {
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw std::invalid_argument(std::string(what) + ": axis " + std::to_string(axis) + " out of range for rank " +
                                std::to_string(rank));
  return a;
}

}  // namespace sinklab
