// Naive twins of core/kernels/unary.isa.cpp: flat loops, double math, derivatives from x alone.
#include <cmath>
#include <numbers>

#include "core/kernels/elementwise_reference.h"
#include "core/kernels/unary.h"

namespace sinklab::kernels {
namespace {

template <class F>
void forward(const float* x, float* y, const ElementwiseLayout& l, F f) {
  for (int64_t i = 0; i < l.numel(); ++i) y[i] = static_cast<float>(f(static_cast<double>(x[offset_a(l, i)])));
}

// dx += dy * fprime(x)
template <class F>
void backward(const float* x, const float* dy, float* dx, const ElementwiseLayout& l, F fprime) {
  for (int64_t i = 0; i < l.numel(); ++i) {
    const int64_t o = offset_a(l, i);
    dx[o] += static_cast<float>(static_cast<double>(dy[i]) * fprime(static_cast<double>(x[o])));
  }
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
double normal_cdf(double v) { return 0.5 * std::erfc(-v / std::numbers::sqrt2); }
double normal_pdf(double v) { return std::exp(-0.5 * v * v) / std::sqrt(2.0 * std::numbers::pi); }
// GPT-2's tanh GELU and its derivative via 1 - tanh^2 = 1 / cosh^2 (another route than the fast kernel's).
double gelu_tanh_u(double v) { return std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v); }
double gelu_tanh(double v) { return 0.5 * v * (1.0 + std::tanh(gelu_tanh_u(v))); }
double gelu_tanh_prime(double v) {
  const double c = std::cosh(gelu_tanh_u(v));
  return 0.5 * (1.0 + std::tanh(gelu_tanh_u(v))) +
         0.5 * v * std::sqrt(2.0 / std::numbers::pi) * (1.0 + 3.0 * 0.044715 * v * v) / (c * c);
}

}  // namespace

void exp_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, [](double v) { return std::exp(v); });
}
void log_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, [](double v) { return std::log(v); });
}
void tanh_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, [](double v) { return std::tanh(v); });
}
void sigmoid_forward_reference(const float* x, float* y, const ElementwiseLayout& l) { forward(x, y, l, sigmoid); }
void relu_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, [](double v) { return v > 0.0 ? v : 0.0; });
}
void gelu_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, [](double v) { return v * normal_cdf(v); });
}

void gelu_tanh_forward_reference(const float* x, float* y, const ElementwiseLayout& l) {
  forward(x, y, l, gelu_tanh);
}

void exp_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return std::exp(v); });
}
void log_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return 1.0 / v; });
}
void tanh_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return 1.0 / (std::cosh(v) * std::cosh(v)); });
}
void sigmoid_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return sigmoid(v) * sigmoid(-v); });
}
void relu_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return v > 0.0 ? 1.0 : 0.0; });
}
void gelu_backward_reference(const float* x, const float*, const float* dy, float* dx, const ElementwiseLayout& l) {
  backward(x, dy, dx, l, [](double v) { return normal_cdf(v) + v * normal_pdf(v); });
}

void gelu_tanh_backward_reference(const float* x, const float*, const float* dy, float* dx,
                                  const ElementwiseLayout& l) {
  backward(x, dy, dx, l, gelu_tanh_prime);
}

}  // namespace sinklab::kernels
