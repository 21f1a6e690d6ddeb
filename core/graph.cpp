#include "core/graph.h"

#include "core/kernels/elementwise.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {

Graph::Graph(size_t arena_floats, size_t tape_capacity) : arena_(arena_floats) { tape_.reserve(tape_capacity); }

bool Graph::needs_grad(std::initializer_list<Tensor> inputs) const {
  if (!grad_enabled_) return false;
  return std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.requires_grad(); });
}

Tensor Graph::new_tensor(const Shape& shape, bool track) {
  const auto n = static_cast<size_t>(shape.numel());
  float* data = arena_.allocate(n);
  float* grad = nullptr;
  if (track) {
    grad = arena_.allocate(n);
    kernels::fill_zero(grad, static_cast<int64_t>(n));
  }
  return Tensor(data, grad, shape);
}

void Graph::record(const Node& node) {
  if (grad_enabled_) tape_.push_back(node);
}

void Graph::backward(const Tensor& loss) {
  if (loss.numel() != 1) throw std::invalid_argument("backward: loss must have one element, got " + loss.shape().str());
  if (!loss.requires_grad()) throw std::logic_error("backward: loss does not require grad (nothing recorded)");
  loss.grad()[0] = 1.0f;
  run_backward();
}

void Graph::backward(const Tensor& output, std::span<const float> seed) {
  if (!output.requires_grad()) throw std::logic_error("backward: output does not require grad");
  if (!output.is_contiguous() || static_cast<int64_t>(seed.size()) != output.numel())
    throw std::invalid_argument("backward: seed must match a contiguous output " + output.shape().str());
  std::copy(seed.begin(), seed.end(), output.grad());
  run_backward();
}

void Graph::run_backward() {
  for (auto it = tape_.rbegin(); it != tape_.rend(); ++it) it->backward(*it);
}

void Graph::reset() {
  tape_.clear();
  arena_.rewind();
}

}  // namespace sinklab
