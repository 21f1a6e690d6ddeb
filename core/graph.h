#pragma once
// Graph: the per-step execution context. It owns the activation arena and the autodiff tape.
// Ops append nodes in execution order, which is already topological, so backward() is a reverse
// walk. Backward functions ACCUMULATE into input gradients (a tensor used twice gets both
// contributions). The tape and arena keep their capacity across reset(), so steady-state steps do
// not allocate.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "core/arena.h"
#include "core/tensor.h"

namespace sinklab {

struct Node;
using BackwardFn = void (*)(const Node&);

struct Node {
  BackwardFn backward = nullptr;
  const char* op = "";                 // op name, for debugging
  std::array<Tensor, 4> inputs{};
  Tensor output;
  std::array<float, 4> scalars{};
  std::array<int64_t, 4> ints{};
  const void* context = nullptr;        // read-only op state owned elsewhere (e.g. a normalizer)
  float* saved = nullptr;               // arena values the forward kept for backward
};

class Graph {
 public:
  explicit Graph(size_t arena_floats = size_t{1} << 16, size_t tape_capacity = 256);

  Arena& arena() { return arena_; }
  bool grad_enabled() const { return grad_enabled_; }
  void set_grad_enabled(bool on) { grad_enabled_ = on; }

  // True when grad mode is on and any of the inputs tracks a gradient.
  bool needs_grad(std::initializer_list<Tensor> inputs) const;
  // A contiguous arena tensor; with a zeroed gradient buffer when `track`.
  Tensor new_tensor(const Shape& shape, bool track);
  // Uninitialized arena floats (saved statistics, scratch).
  float* scratch(size_t floats) { return arena_.allocate(floats); }

  void record(const Node& node);  // ignored when grad mode is off
  size_t tape_size() const { return tape_.size(); }

  // Seeds d(loss)/d(loss) = 1 for a one-element tensor and walks the tape backwards.
  void backward(const Tensor& loss);
  // Seeds the output gradient with `seed` (same element count as `output`, contiguous) instead.
  void backward(const Tensor& output, std::span<const float> seed);

  // End of step: forget the tape and rewind the arena. Every arena tensor becomes invalid.
  void reset();

 private:
  void run_backward();

  Arena arena_;
  std::vector<Node> tape_;
  bool grad_enabled_ = true;
};

// Turns gradient recording off for its scope (evaluation, finite differences).
class NoGradGuard {
 public:
  explicit NoGradGuard(Graph& g) : graph_(g), previous_(g.grad_enabled()) { g.set_grad_enabled(false); }
  ~NoGradGuard() { graph_.set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  Graph& graph_;
  bool previous_;
};

}  // namespace sinklab
