#include "core/ops/op_checks.h"

#include <stdexcept>

namespace sinklab::op_checks {

void fail(const char* op, const std::string& what) { throw std::invalid_argument(std::string(op) + ": " + what); }

void require_defined(const char* op, const char* name, const Tensor& t) {
  if (!t.defined()) fail(op, std::string("input '") + name + "' is undefined");
}

void require_contiguous(const char* op, const char* name, const Tensor& t) {
  require_defined(op, name, t);
  if (!t.is_contiguous())
    fail(op, std::string("input '") + name + "' " + t.shape().str() +
                 " is a non-contiguous view; copy it with contiguous(g, x) (core/ops/layout_op.h) first");
}

void require_same_shape(const char* op, const Tensor& a, const Tensor& b) {
  if (!(a.shape() == b.shape())) fail(op, "shapes differ: " + a.shape().str() + " vs " + b.shape().str());
}

void require_vector_or_undefined(const char* op, const char* name, const Tensor& t, int64_t channels) {
  if (!t.defined()) return;
  if (t.rank() != 1 || t.dim(0) != channels)
    fail(op, std::string("'") + name + "' must be [" + std::to_string(channels) + "], got " + t.shape().str());
  require_contiguous(op, name, t);
}

std::string index_str(const Shape& shape, int64_t flat) {
  std::string s = "]";
  for (int i = shape.rank - 1; i >= 0; --i) {
    const int64_t d = shape[i] > 0 ? shape[i] : 1;
    s = (i ? ", " : "") + std::to_string(flat % d) + s;
    flat /= d;
  }
  return "[" + s;
}

float value_at(const Tensor& t, int64_t flat) {
  int64_t off = 0;
  for (int i = t.rank() - 1; i >= 0; --i) {
    const int64_t d = t.dim(i) > 0 ? t.dim(i) : 1;
    off += (flat % d) * t.stride(i);
    flat /= d;
  }
  return t.data()[off];
}

}  // namespace sinklab::op_checks
