#pragma once
// Tensor: a cheap float32 handle (pointer + shape + strides). It owns nothing: data live in the
// parameter store or the per-step activation arena. When gradients are tracked, `grad` points to a
// buffer with the same layout as `data`, so views (reshape, transpose, permute, slice) carry both.
#include <initializer_list>

#include "core/shape.h"

namespace sinklab {

class Tensor {
 public:
  Tensor() = default;
  Tensor(float* data, float* grad, const Shape& shape);  // contiguous
  Tensor(float* data, float* grad, const Shape& shape, const Strides& strides);

  float* data() const { return data_; }
  float* grad() const { return grad_; }
  bool requires_grad() const { return grad_ != nullptr; }
  bool defined() const { return data_ != nullptr; }

  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  int rank() const { return shape_.rank; }
  int64_t dim(int axis) const;      // negative axes count from the end
  int64_t stride(int axis) const;
  int64_t numel() const { return shape_.numel(); }
  bool is_contiguous() const;

  // Views sharing storage (and gradient storage).
  Tensor reshape(const Shape& shape) const;  // contiguous tensors only
  Tensor transpose(int a, int b) const;
  Tensor permute(std::initializer_list<int> order) const;
  Tensor slice(int axis, int64_t start, int64_t length) const;
  Tensor detach() const { return Tensor(data_, nullptr, shape_, strides_); }

  // Element access by multi-index (tests, small reference code; not for kernels).
  float& at(std::initializer_list<int64_t> index) const;
  float& grad_at(std::initializer_list<int64_t> index) const;
  int64_t offset_of(std::initializer_list<int64_t> index) const;

 private:
  float* data_ = nullptr;
  float* grad_ = nullptr;
  Shape shape_;
  Strides strides_{};
};

}  // namespace sinklab
