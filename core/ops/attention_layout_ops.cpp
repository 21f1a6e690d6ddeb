#include "core/ops/attention_layout_ops.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace sinklab {
namespace {

struct RepeatSaved {
  int64_t groups;
};

void repeat_heads_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const int64_t K = x.dim(0), block = x.numel() / K, groups = n.payload<RepeatSaved>().groups;
  const float* dy = n.output.grad();
  float* dx = x.grad();
  // Each kv head's block is written by one thread, its groups summed in a fixed order.
#pragma omp parallel for schedule(static) if (K * groups * block >= (1 << 16))
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < groups; ++r) {
      const float* src = dy + (k * groups + r) * block;
      float* dst = dx + k * block;
      for (int64_t i = 0; i < block; ++i) dst[i] += src[i];
    }
}

struct WindowSaved {
  int64_t window;
};

void window_backward(const Node& n) {
  const Tensor& x = n.inputs[0];
  const int64_t T = x.dim(-1), rows = x.numel() / T, window = n.payload<WindowSaved>().window;
  const float* dy = n.output.grad();
  float* dx = x.grad();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % T, first = std::max<int64_t>(0, i - window + 1);
    for (int64_t j = first; j < T; ++j) dx[r * T + j] += dy[r * T + j];
  }
}

}  // namespace

Tensor repeat_heads(Graph& g, const Tensor& x, int64_t groups) {
  if (groups < 1 || x.rank() < 1 || !x.is_contiguous())
    throw std::invalid_argument("repeat_heads: needs a contiguous tensor and groups >= 1, got " + x.shape().str());
  Shape shape = x.shape();
  const int64_t K = shape[0], block = K > 0 ? x.numel() / K : 0;
  shape[0] = K * groups;
  Tensor y = g.new_tensor(shape, g.needs_grad({x}));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t r = 0; r < groups; ++r)
      std::memcpy(y.data() + (k * groups + r) * block, x.data() + k * block,
                  static_cast<size_t>(block) * sizeof(float));
  if (y.requires_grad()) {
    Node n;
    n.backward = repeat_heads_backward;
    n.op = "repeat_heads";
    n.inputs = {x};
    n.output = y;
    n.set_payload(RepeatSaved{groups});
    g.record(n);
  }
  return y;
}

Tensor mask_outside_window(Graph& g, const Tensor& scores, int64_t window) {
  if (window < 1 || scores.rank() < 2 || scores.dim(-1) != scores.dim(-2) || !scores.is_contiguous())
    throw std::invalid_argument("mask_outside_window: needs contiguous [..., T, T] scores and window >= 1, got " +
                                scores.shape().str());
  const int64_t T = scores.dim(-1), rows = scores.numel() / T;
  Tensor y = g.new_tensor(scores.shape(), g.needs_grad({scores}));
  const float minus_inf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % T, first = std::max<int64_t>(0, i - window + 1);
    const float* src = scores.data() + r * T;
    float* dst = y.data() + r * T;
    for (int64_t j = 0; j < T; ++j) dst[j] = j < first ? minus_inf : src[j];
  }
  if (y.requires_grad()) {
    Node n;
    n.backward = window_backward;
    n.op = "mask_outside_window";
    n.inputs = {scores};
    n.output = y;
    n.set_payload(WindowSaved{window});
    g.record(n);
  }
  return y;
}

}  // namespace sinklab
