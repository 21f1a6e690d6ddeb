#include "core/graph.h"

#include "core/kernels/elementwise.h"

#include <algorithm>
#include <stdexcept>

namespace sinklab {

Graph::Graph(size_t arena_floats, size_t tape_capacity) : arena_(arena_floats) {
  tape_.reserve(tape_capacity);
  grad_buffers_.reserve(tape_capacity);
}

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
    grad_buffers_.push_back({grad, n, 0, false});
  }
  return Tensor(data, grad, shape);
}

int32_t Graph::find_buffer(const float* grad) const {
  if (grad == nullptr) return -1;
  // Inputs are usually recent tensors: scan from the newest.
  for (auto i = static_cast<int32_t>(grad_buffers_.size()) - 1; i >= 0; --i) {
    const GradBuffer& b = grad_buffers_[static_cast<size_t>(i)];
    if (grad >= b.begin && grad < b.begin + b.size) return i;
  }
  return -1;
}

void Graph::make_ready(int32_t buffer) {
  if (buffer < 0) return;
  GradBuffer& b = grad_buffers_[static_cast<size_t>(buffer)];
  if (!b.ready) kernels::fill_zero(b.begin, static_cast<int64_t>(b.size));
  b.ready = true;
}

void Graph::record(const Node& node) {
  if (!grad_enabled_) return;
  Node& n = tape_.emplace_back(node);
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    n.input_buffers[k] = find_buffer(n.inputs[k].grad());
    if (n.input_buffers[k] >= 0) ++grad_buffers_[static_cast<size_t>(n.input_buffers[k])].consumers;
  }
  n.output_buffer = find_buffer(n.output.grad());
}

void Graph::backward(const Tensor& loss) {
  if (loss.numel() != 1) throw std::invalid_argument("backward: loss must have one element, got " + loss.shape().str());
  if (!loss.requires_grad()) throw std::logic_error("backward: loss does not require grad (nothing recorded)");
  make_ready(find_buffer(loss.grad()));
  loss.grad()[0] = 1.0f;
  run_backward();
}

void Graph::backward(const Tensor& output, std::span<const float> seed) {
  if (!output.requires_grad()) throw std::logic_error("backward: output does not require grad");
  if (!output.is_contiguous() || static_cast<int64_t>(seed.size()) != output.numel())
    throw std::invalid_argument("backward: seed must match a contiguous output " + output.shape().str());
  make_ready(find_buffer(output.grad()));
  std::copy(seed.begin(), seed.end(), output.grad());
  run_backward();
}

namespace {

// True when the view reaches every element of its buffer exactly once: it starts at the buffer,
// has as many elements, and its strides (all positive) span exactly that many: a permutation or
// reshape of the whole buffer, as the inputs of attention's products are.
bool covers_buffer(const Tensor& t, const float* begin, size_t size) {
  if (t.grad() != begin || static_cast<size_t>(t.numel()) != size) return false;
  int64_t last = 0;
  for (int d = 0; d < t.rank(); ++d) {
    if (t.dim(d) == 1) continue;
    if (t.stride(d) <= 0) return false;
    last += (t.dim(d) - 1) * t.stride(d);
  }
  return static_cast<size_t>(last) + 1 == size;
}

}  // namespace

void Graph::run_backward() {
  for (auto it = tape_.rbegin(); it != tape_.rend(); ++it) {
    Node& n = *it;
    make_ready(n.output_buffer);  // nothing downstream wrote it: its gradient is 0
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      n.fresh_grad[k] = false;
      const int32_t id = n.input_buffers[k];
      if (id < 0 || grad_buffers_[static_cast<size_t>(id)].ready) continue;
      GradBuffer& b = grad_buffers_[static_cast<size_t>(id)];
      if (n.overwrites_fresh_grads && b.consumers == 1 && covers_buffer(n.inputs[k], b.begin, b.size)) {
        n.fresh_grad[k] = true;
        b.ready = true;
      } else {
        make_ready(id);
      }
    }
    n.backward(n);
  }
  for (int32_t id = 0; id < static_cast<int32_t>(grad_buffers_.size()); ++id) make_ready(id);
}

void Graph::reset() {
  tape_.clear();
  grad_buffers_.clear();
  arena_.rewind();
}

}  // namespace sinklab
