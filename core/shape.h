#pragma once
// Shapes and strides of up to kMaxRank dimensions, stored inline (no heap) so tensors are cheap handles.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace sinklab {

inline constexpr int kMaxRank = 4;

struct Shape {
  std::array<int64_t, kMaxRank> dims{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);

  int64_t operator[](int i) const { return dims[static_cast<size_t>(i)]; }
  int64_t& operator[](int i) { return dims[static_cast<size_t>(i)]; }
  int64_t numel() const;
  bool operator==(const Shape& o) const;
  std::string str() const;  // "[2, 3, 4]"
};

using Strides = std::array<int64_t, kMaxRank>;

// Row-major (C order) strides of a shape.
Strides contiguous_strides(const Shape& shape);

// A negative axis counts from the end; throws std::invalid_argument naming `what` when out of range.
int normalize_axis(int axis, int rank, const char* what);

}  // namespace sinklab
