// Unary kernels against their naive twins (double math, derivatives from x alone), on contiguous,
// transposed and large (parallel) layouts; plus hand-computed values.
#include "core/kernels/unary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

using Forward = void (*)(const float*, float*, const ElementwiseLayout&);
using Backward = void (*)(const float*, const float*, const float*, float*, const ElementwiseLayout&);

struct UnaryKernel {
  const char* name;
  Forward fast, reference;
  Backward fast_backward, reference_backward;
  float lo, hi;  // input range (log needs x > 0)
};

const UnaryKernel kKernels[] = {
    {"exp", exp_forward, exp_forward_reference, exp_backward, exp_backward_reference, -4.0f, 4.0f},
    {"log", log_forward, log_forward_reference, log_backward, log_backward_reference, 0.1f, 5.0f},
    {"tanh", tanh_forward, tanh_forward_reference, tanh_backward, tanh_backward_reference, -4.0f, 4.0f},
    {"sigmoid", sigmoid_forward, sigmoid_forward_reference, sigmoid_backward, sigmoid_backward_reference, -8.0f, 8.0f},
    {"relu", relu_forward, relu_forward_reference, relu_backward, relu_backward_reference, -2.0f, 2.0f},
    {"gelu", gelu_forward, gelu_forward_reference, gelu_backward, gelu_backward_reference, -5.0f, 5.0f},
    {"gelu_tanh", gelu_tanh_forward, gelu_tanh_forward_reference, gelu_tanh_backward, gelu_tanh_backward_reference,
     -6.0f, 6.0f},
};

struct Layout {
  std::string name;
  ElementwiseLayout layout;
  size_t storage;
};

std::vector<Layout> layouts() {
  return {
      {"odd_flat", flat_layout(1003), 1003},
      {"transposed", unary_layout(Shape{13, 7}, Strides{1, 13, 0, 0}), 91},
      {"sliced_rows", unary_layout(Shape{5, 3}, Strides{8, 1, 0, 0}), 40},  // 3 of every 8 columns
      {"large_parallel", flat_layout(100003), 100003},
      {"large_transposed", unary_layout(Shape{301, 129}, Strides{1, 301, 0, 0}), 301 * 129},
  };
}

TEST(UnaryKernel, MatchesReference) {
  for (const UnaryKernel& k : kKernels) {
    for (const Layout& lay : layouts()) {
      SCOPED_TRACE(std::string(k.name) + " " + lay.name);
      const ElementwiseLayout& l = lay.layout;
      const auto n = static_cast<size_t>(l.numel());
      const std::vector<float> x = random_floats(lay.storage, 21, k.lo, k.hi), dy = random_floats(n, 22);
      std::vector<float> y(n), y_ref(n);
      k.fast(x.data(), y.data(), l);
      k.reference(x.data(), y_ref.data(), l);
      EXPECT_TRUE(all_close(y, y_ref, 2e-6, 1e-6));
      std::vector<float> dx = random_floats(lay.storage, 23), dx_ref = dx;
      k.fast_backward(x.data(), y.data(), dy.data(), dx.data(), l);
      k.reference_backward(x.data(), y_ref.data(), dy.data(), dx_ref.data(), l);
      EXPECT_TRUE(all_close(dx, dx_ref, 1e-5, 2e-6));
    }
  }
}

TEST(UnaryKernel, HandValues) {
  const std::vector<float> x = {0.0f, 1.0f, -1.0f};
  std::vector<float> y(3);
  const ElementwiseLayout l = flat_layout(3);
  gelu_forward(x.data(), y.data(), l);
  EXPECT_NEAR(y[0], 0.0f, 1e-7);
  EXPECT_NEAR(y[1], 0.8413447f, 1e-6);   // 1 * Phi(1)
  EXPECT_NEAR(y[2], -0.1586553f, 1e-6);  // -1 * Phi(-1)
  const std::vector<float> dy(3, 1.0f);
  std::vector<float> dx(3, 0.0f);
  gelu_backward(x.data(), y.data(), dy.data(), dx.data(), l);
  EXPECT_NEAR(dx[0], 0.5f, 1e-6);
  EXPECT_NEAR(dx[1], 1.0833155f, 1e-6);   // Phi(1) + phi(1)
  EXPECT_NEAR(dx[2], -0.0833155f, 1e-6);  // Phi(-1) - phi(-1)
  // GPT-2's tanh form differs from the erf form by ~6e-4 at |x| = 1 (values from the formula in float64).
  gelu_tanh_forward(x.data(), y.data(), l);
  EXPECT_NEAR(y[0], 0.0f, 1e-7);
  EXPECT_NEAR(y[1], 0.84119199f, 1e-6);
  EXPECT_NEAR(y[2], -0.15880801f, 1e-6);
  std::fill(dx.begin(), dx.end(), 0.0f);
  gelu_tanh_backward(x.data(), y.data(), dy.data(), dx.data(), l);
  EXPECT_NEAR(dx[0], 0.5f, 1e-6);
  EXPECT_NEAR(dx[1], 1.08296408f, 1e-6);
  EXPECT_NEAR(dx[2], -0.08296408f, 1e-6);
  sigmoid_forward(x.data(), y.data(), l);
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_NEAR(y[1], 0.7310586f, 1e-6);
  std::fill(dx.begin(), dx.end(), 0.0f);
  tanh_forward(x.data(), y.data(), l);
  tanh_backward(x.data(), y.data(), dy.data(), dx.data(), l);
  EXPECT_NEAR(dx[1], 0.4199743f, 1e-6);  // 1 - tanh(1)^2
  std::fill(dx.begin(), dx.end(), 0.0f);
  relu_forward(x.data(), y.data(), l);
  relu_backward(x.data(), y.data(), dy.data(), dx.data(), l);
  EXPECT_EQ(y, (std::vector<float>{0.0f, 1.0f, 0.0f}));
  EXPECT_EQ(dx, (std::vector<float>{0.0f, 1.0f, 0.0f}));  // no gradient at exactly 0
}

TEST(UnaryKernel, SigmoidSaturatesWithoutNaN) {
  const std::vector<float> x = {-200.0f, 200.0f, -88.0f, 88.0f};
  std::vector<float> y(4);
  sigmoid_forward(x.data(), y.data(), flat_layout(4));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 1.0f);
  for (float v : y) EXPECT_FALSE(std::isnan(v));
}

}  // namespace
}  // namespace sinklab::kernels
