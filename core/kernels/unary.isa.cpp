#include "core/kernels/unary.h"

#include <cmath>
#include <numbers>

#include "core/kernels/fast_exp.h"
#include "core/kernels/fast_normal_cdf.h"

#include "core/cpu/isa_region.h"

// Compiled once per ISA level (core/cpu/isa_dispatch.h); core/kernels/unary.cpp calls the chosen copy.
SINKLAB_ISA_BEGIN
#include "core/kernels/elementwise_loops.h"

namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE {
namespace {

constexpr float kInvSqrt2Pi = static_cast<float>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
// gelu_tanh: u = kSqrt2OverPi (x + kGeluCubic x^3), the constants of GPT-2's "gelu_new".
constexpr float kSqrt2OverPi = static_cast<float>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
constexpr float kGeluCubic = 0.044715f;

// dx += g(x, y, dy), with y read like the contiguous output.
template <class G>
void backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l, G g) {
  if (dx) accumulate_grad(x, y, dy, dx, with_output_as_b(l), g);
}

}  // namespace

void exp_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return fast_exp(v); });
}
void log_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return std::log(v); });
}
void tanh_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return std::tanh(v); });
}
void sigmoid_forward(const float* x, float* y, const ElementwiseLayout& l) {
  // exp(-x) overflows to inf for x < -88, which still gives the right limit 0.
  map_unary(x, y, l, [](float v) { return 1.0f / (1.0f + fast_exp(-v)); });
}
void relu_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return v > 0.0f ? v : 0.0f; });
}
void gelu_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l, [](float v) { return v * fast_normal_cdf(v); });
}

void gelu_tanh_forward(const float* x, float* y, const ElementwiseLayout& l) {
  map_unary(x, y, l,
            [](float v) { return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + kGeluCubic * v * v * v))); });
}

void exp_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, y, dy, dx, l, [](float, float yv, float d) { return d * yv; });
}
void log_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, y, dy, dx, l, [](float xv, float, float d) { return d / xv; });
}
void tanh_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, y, dy, dx, l, [](float, float yv, float d) { return d * (1.0f - yv * yv); });
}
void sigmoid_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, y, dy, dx, l, [](float, float yv, float d) { return d * yv * (1.0f - yv); });
}
void relu_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, y, dy, dx, l, [](float xv, float, float d) { return xv > 0.0f ? d : 0.0f; });
}
void gelu_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  // d/dx [x Phi(x)] = Phi(x) + x phi(x)
  backward(x, y, dy, dx, l, [](float xv, float, float d) {
    const float cdf = fast_normal_cdf(xv);
    const float pdf = kInvSqrt2Pi * fast_exp(-0.5f * xv * xv);
    return d * (cdf + xv * pdf);
  });
}

void gelu_tanh_backward(const float* x, const float* y, const float* dy, float* dx, const ElementwiseLayout& l) {
  // d/dx [x/2 (1 + tanh u)] = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) u',  u' = kSqrt2OverPi (1 + 3 kGeluCubic x^2)
  backward(x, y, dy, dx, l, [](float xv, float, float d) {
    const float x2 = xv * xv;
    const float t = std::tanh(kSqrt2OverPi * (xv + kGeluCubic * x2 * xv));
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x2);
    return d * (0.5f * (1.0f + t) + 0.5f * xv * (1.0f - t * t) * du);
  });
}

}  // namespace sinklab::kernels::SINKLAB_ISA_NAMESPACE
SINKLAB_ISA_END
