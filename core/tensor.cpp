#include "core/tensor.h"

#include <stdexcept>
#include <vector>

namespace sinklab {

Tensor::Tensor(float* data, float* grad, const Shape& shape)
    : data_(data), grad_(grad), shape_(shape), strides_(contiguous_strides(shape)) {}

Tensor::Tensor(float* data, float* grad, const Shape& shape, const Strides& strides)
    : data_(data), grad_(grad), shape_(shape), strides_(strides) {}

int64_t Tensor::dim(int axis) const { return shape_[normalize_axis(axis, rank(), "Tensor::dim")]; }

int64_t Tensor::stride(int axis) const {
  return strides_[static_cast<size_t>(normalize_axis(axis, rank(), "Tensor::stride"))];
}

bool Tensor::is_contiguous() const {
  int64_t step = 1;
  for (int i = rank() - 1; i >= 0; --i) {
    if (shape_[i] != 1 && strides_[static_cast<size_t>(i)] != step) return false;
    step *= shape_[i];
  }
  return true;
}

Tensor Tensor::reshape(const Shape& shape) const {
  if (!is_contiguous()) throw std::invalid_argument("reshape: tensor " + shape_.str() + " is not contiguous");
  if (shape.numel() != numel())
    throw std::invalid_argument("reshape: cannot view " + shape_.str() + " as " + shape.str());
  return Tensor(data_, grad_, shape);
}

Tensor Tensor::transpose(int a, int b) const {
  const auto ia = static_cast<size_t>(normalize_axis(a, rank(), "transpose"));
  const auto ib = static_cast<size_t>(normalize_axis(b, rank(), "transpose"));
  Tensor t = *this;
  std::swap(t.shape_.dims[ia], t.shape_.dims[ib]);
  std::swap(t.strides_[ia], t.strides_[ib]);
  return t;
}

Tensor Tensor::permute(std::initializer_list<int> order) const {
  if (static_cast<int>(order.size()) != rank()) throw std::invalid_argument("permute: order size != rank");
  Tensor t = *this;
  std::array<bool, kMaxRank> seen{};
  size_t i = 0;
  for (int o : order) {
    const auto src = static_cast<size_t>(normalize_axis(o, rank(), "permute"));
    if (seen[src]) throw std::invalid_argument("permute: repeated axis");
    seen[src] = true;
    t.shape_.dims[i] = shape_.dims[src];
    t.strides_[i] = strides_[src];
    ++i;
  }
  return t;
}

Tensor Tensor::slice(int axis, int64_t start, int64_t length) const {
  const int a = normalize_axis(axis, rank(), "slice");
  if (start < 0 || length < 0 || start + length > shape_[a])
    throw std::invalid_argument("slice: [" + std::to_string(start) + ", " + std::to_string(start + length) +
                                ") out of range for axis " + std::to_string(a) + " of " + shape_.str());
  Tensor t = *this;
  const int64_t off = start * strides_[static_cast<size_t>(a)];
  t.data_ = data_ + off;
  t.grad_ = grad_ ? grad_ + off : nullptr;
  t.shape_[a] = length;
  return t;
}

int64_t Tensor::offset_of(std::initializer_list<int64_t> index) const {
  if (static_cast<int>(index.size()) != rank()) throw std::invalid_argument("at: index rank != tensor rank");
  int64_t off = 0;
  int i = 0;
  for (int64_t v : index) {
    if (v < 0 || v >= shape_[i]) throw std::out_of_range("at: index out of range for " + shape_.str());
    off += v * strides_[static_cast<size_t>(i)];
    ++i;
  }
  return off;
}

float& Tensor::at(std::initializer_list<int64_t> index) const { return data_[offset_of(index)]; }

float& Tensor::grad_at(std::initializer_list<int64_t> index) const {
  if (!grad_) throw std::logic_error("grad_at: tensor has no gradient");
  return grad_[offset_of(index)];
}

}  // namespace sinklab
