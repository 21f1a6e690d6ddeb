#pragma once
// Graph: the per-step execution context. It owns the activation arena and the autodiff tape.
// Ops append nodes in execution order, which is already topological, so backward() is a reverse
// walk. Backward functions ACCUMULATE into input gradients (a tensor used twice gets both
// contributions). The tape and arena keep their capacity across reset(), so steady-state steps do
// not allocate.
//
// Gradient buffers of arena tensors are zeroed lazily, during backward, just before their first
// writer runs (zeroing them all in forward cost ~8% of a 4x4 paper step and evicted the data). When
// that writer is the buffer's only consumer, covers the whole buffer and declares it can overwrite
// (Node::overwrites_fresh_grads, e.g. matmul), the graph skips the zeroing and sets
// Node::fresh_grad[k]: the op writes instead of adding. After backward() every gradient buffer holds
// a defined value (zeros where nothing flowed).
#include <array>
#include <cassert>
#include <cstddef>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

#include "core/arena.h"
#include "core/matmul_precision.h"
#include "core/tensor.h"

namespace sinklab {

struct Node;
using BackwardFn = void (*)(const Node&);

struct Node {
  // What an op keeps for its backward (sizes, constants, pointers to arena values or to state owned
  // elsewhere) is one struct of its own, stored inline so that recording a node never allocates.
  static constexpr size_t kPayloadBytes = 32;

  BackwardFn backward = nullptr;
  const char* op = "";                 // op name, for debugging
  std::array<Tensor, 4> inputs{};
  Tensor output;
  // Set by the op: its backward honours fresh_grad (overwrites instead of adding where it is true).
  bool overwrites_fresh_grads = false;
  // Set by the graph just before backward: input k's gradient buffer holds no value yet and this
  // node is its only writer, so the op must overwrite it (only when overwrites_fresh_grads).
  std::array<bool, 4> fresh_grad{};
  // Graph bookkeeping: which of the graph's gradient buffers the inputs and the output point into.
  std::array<int32_t, 4> input_buffers{-1, -1, -1, -1};
  int32_t output_buffer = -1;

  template <class P>
  void set_payload(const P& p) {
    check_payload_type<P>();
    ::new (static_cast<void*>(payload_.data())) P(p);
    payload_tag_ = &payload_tag<P>;
  }
  // The payload set_payload stored; reading it as another type is a bug (asserted in debug builds).
  template <class P>
  const P& payload() const {
    check_payload_type<P>();
    assert(payload_tag_ == &payload_tag<P> && "Node::payload read as a type other than the one stored");
    return *std::launder(reinterpret_cast<const P*>(payload_.data()));
  }

 private:
  template <class P>
  static constexpr void check_payload_type() {
    // Trivially copyable: a node copy copies the payload's bytes, and no destructor ever runs.
    static_assert(std::is_trivially_copyable_v<P> && sizeof(P) <= kPayloadBytes &&
                      alignof(P) <= alignof(std::max_align_t),
                  "a node payload must be trivially copyable and fit Node::kPayloadBytes");
  }
  // One address per payload type, so that a mismatched read is caught.
  template <class P>
  static constexpr char payload_tag = 0;

  alignas(std::max_align_t) std::array<std::byte, kPayloadBytes> payload_{};
  const char* payload_tag_ = nullptr;
};

class Graph {
 public:
  explicit Graph(size_t arena_floats = size_t{1} << 16, size_t tape_capacity = 256);

  Arena& arena() { return arena_; }
  bool grad_enabled() const { return grad_enabled_; }
  void set_grad_enabled(bool on) { grad_enabled_ = on; }
  // What the matmul ops recorded from now on compute in (their backward keeps the forward's precision).
  MatmulPrecision matmul_precision() const { return matmul_precision_; }
  void set_matmul_precision(MatmulPrecision p) { matmul_precision_ = p; }

  // True when grad mode is on and any of the inputs tracks a gradient.
  bool needs_grad(std::initializer_list<Tensor> inputs) const;
  // A contiguous arena tensor; with a gradient buffer when `track` (zeroed lazily, see above).
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
  struct GradBuffer {
    float* begin;
    size_t size;
    int consumers;  // node inputs pointing into it
    bool ready;     // holds a value (zeroed, seeded or written)
  };
  void run_backward();
  int32_t find_buffer(const float* grad) const;  // -1 when not an arena tensor's gradient
  void make_ready(int32_t buffer);                // zeroes it unless it already holds a value

  Arena arena_;
  std::vector<Node> tape_;
  std::vector<GradBuffer> grad_buffers_;
  bool grad_enabled_ = true;
  MatmulPrecision matmul_precision_ = MatmulPrecision::float32;
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

// Sets the graph's matmul precision for its scope (a training step under train.precision) and restores
// the previous one after, so that evaluations on the same graph keep theirs.
class MatmulPrecisionScope {
 public:
  MatmulPrecisionScope(Graph& g, MatmulPrecision p) : graph_(g), previous_(g.matmul_precision()) {
    g.set_matmul_precision(p);
  }
  ~MatmulPrecisionScope() { graph_.set_matmul_precision(previous_); }
  MatmulPrecisionScope(const MatmulPrecisionScope&) = delete;
  MatmulPrecisionScope& operator=(const MatmulPrecisionScope&) = delete;

 private:
  Graph& graph_;
  MatmulPrecision previous_;
};

}  // namespace sinklab
