// Elementwise kernels against their naive twins on random data: odd sizes, broadcasts, transposed
// inputs, and sizes large enough to take the parallel path. Backward kernels must accumulate.
#include "core/kernels/elementwise.h"
#include "core/kernels/elementwise_reference.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/core/test_arrays.h"

namespace sinklab::kernels {
namespace {

using sinklab::testing::all_close;
using sinklab::testing::random_floats;

// One operand: its logical shape and whether its memory holds the transpose of the last two dims.
struct Operand {
  Shape shape;
  bool transposed = false;
  Strides strides() const {
    if (!transposed) return contiguous_strides(shape);
    Shape stored = shape;
    std::swap(stored[shape.rank - 1], stored[shape.rank - 2]);
    Strides s = contiguous_strides(stored);
    std::swap(s[static_cast<size_t>(shape.rank - 1)], s[static_cast<size_t>(shape.rank - 2)]);
    return s;
  }
};

struct Case {
  std::string name;
  Operand a, b;
};

std::vector<Case> cases() {
  return {
      {"same_shape_odd", {Shape{1001}}, {Shape{1001}}},
      {"row_broadcast", {Shape{5, 7, 3}}, {Shape{3}}},
      {"both_broadcast", {Shape{2, 1, 5}}, {Shape{3, 1}}},
      {"transposed_a", {Shape{7, 5}, true}, {Shape{7, 5}}},
      {"transposed_b_broadcast", {Shape{4, 7, 5}}, {Shape{7, 5}, true}},
      {"rank4", {Shape{2, 1, 3, 1}}, {Shape{1, 4, 1, 5}}},
      {"scalar_b", {Shape{3, 4}}, {Shape{1}}},
      {"large_parallel", {Shape{70001}}, {Shape{70001}}},
      {"large_broadcast", {Shape{301, 129}}, {Shape{129}}},
      {"large_transposed", {Shape{257, 131}, true}, {Shape{257, 131}}},
  };
}

using Forward = void (*)(const float*, const float*, float*, const ElementwiseLayout&);
using Backward = void (*)(const float*, const float*, const float*, float*, float*, const ElementwiseLayout&);

struct BinaryKernel {
  const char* name;
  Forward fast, reference;
  Backward fast_backward, reference_backward;
};

void add_bwd(const float*, const float*, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  add_backward(dy, da, db, l);
}
void add_bwd_ref(const float*, const float*, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  add_backward_reference(dy, da, db, l);
}
void sub_bwd(const float*, const float*, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  sub_backward(dy, da, db, l);
}
void sub_bwd_ref(const float*, const float*, const float* dy, float* da, float* db, const ElementwiseLayout& l) {
  sub_backward_reference(dy, da, db, l);
}

const BinaryKernel kKernels[] = {
    {"add", add_forward, add_forward_reference, add_bwd, add_bwd_ref},
    {"sub", sub_forward, sub_forward_reference, sub_bwd, sub_bwd_ref},
    {"mul", mul_forward, mul_forward_reference, mul_backward, mul_backward_reference},
    {"div", div_forward, div_forward_reference, div_backward, div_backward_reference},
};

TEST(ElementwiseKernel, BinaryMatchesReference) {
  for (const Case& c : cases()) {
    Shape out;
    ASSERT_TRUE(broadcast_shape(c.a.shape, c.b.shape, out)) << c.name;
    const ElementwiseLayout l = binary_layout(out, c.a.shape, c.a.strides(), c.b.shape, c.b.strides());
    const auto na = static_cast<size_t>(c.a.shape.numel()), nb = static_cast<size_t>(c.b.shape.numel());
    const auto n = static_cast<size_t>(out.numel());
    const std::vector<float> a = random_floats(na, 1), dy = random_floats(n, 3);
    const std::vector<float> b = random_floats(nb, 2, 0.5f, 1.5f);  // away from 0 for div
    for (const BinaryKernel& k : kKernels) {
      SCOPED_TRACE(std::string(k.name) + " " + c.name);
      std::vector<float> y(n), y_ref(n);
      k.fast(a.data(), b.data(), y.data(), l);
      k.reference(a.data(), b.data(), y_ref.data(), l);
      EXPECT_TRUE(all_close(y, y_ref));
      // Gradients start non-zero: the kernels must add, not overwrite.
      std::vector<float> da = random_floats(na, 4), db = random_floats(nb, 5);
      std::vector<float> da_ref = da, db_ref = db;
      k.fast_backward(a.data(), b.data(), dy.data(), da.data(), db.data(), l);
      k.reference_backward(a.data(), b.data(), dy.data(), da_ref.data(), db_ref.data(), l);
      // Broadcast gradients are sums of up to ~300 terms accumulated in a different order.
      EXPECT_TRUE(all_close(da, da_ref, 1e-5, 2e-5));
      EXPECT_TRUE(all_close(db, db_ref, 1e-5, 2e-5));
      // A null gradient is skipped, the other one still computed.
      std::vector<float> db_only(nb, 0.0f), db_only_ref(nb, 0.0f);
      k.fast_backward(a.data(), b.data(), dy.data(), nullptr, db_only.data(), l);
      k.reference_backward(a.data(), b.data(), dy.data(), nullptr, db_only_ref.data(), l);
      EXPECT_TRUE(all_close(db_only, db_only_ref, 1e-5, 2e-5));
    }
  }
}

TEST(ElementwiseKernel, ScalarOpsMatchReference) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const ElementwiseLayout l = unary_layout(c.a.shape, c.a.strides());
    const auto n = static_cast<size_t>(c.a.shape.numel());
    const std::vector<float> x = random_floats(n, 7), xpos = random_floats(n, 8, 0.2f, 2.0f), dy = random_floats(n, 9);
    std::vector<float> y(n), y_ref(n);
    add_scalar_forward(x.data(), 0.75f, y.data(), l);
    add_scalar_forward_reference(x.data(), 0.75f, y_ref.data(), l);
    EXPECT_TRUE(all_close(y, y_ref));
    mul_scalar_forward(x.data(), -1.5f, y.data(), l);
    mul_scalar_forward_reference(x.data(), -1.5f, y_ref.data(), l);
    EXPECT_TRUE(all_close(y, y_ref));
    neg_forward(x.data(), y.data(), l);
    neg_forward_reference(x.data(), y_ref.data(), l);
    EXPECT_TRUE(all_close(y, y_ref));
    copy_forward(x.data(), y.data(), l);
    copy_forward_reference(x.data(), y_ref.data(), l);
    EXPECT_TRUE(all_close(y, y_ref, 0.0, 0.0));

    std::vector<float> dx = random_floats(n, 10), dx_ref = dx;
    mul_scalar_backward(dy.data(), -1.5f, dx.data(), l);
    mul_scalar_backward_reference(dy.data(), -1.5f, dx_ref.data(), l);
    EXPECT_TRUE(all_close(dx, dx_ref));

    // Every special-cased exponent and a general one; integers also on negative inputs.
    for (float p : {2.0f, 1.0f, 0.5f, -1.0f, 3.0f, -1.5f, 2.5f}) {
      SCOPED_TRACE("p = " + std::to_string(p));
      const bool integer = p == static_cast<float>(static_cast<int>(p));
      const std::vector<float>& in = integer ? x : xpos;
      const float* data = in.data();
      if (p < 0 && integer) data = xpos.data();  // 1/x near 0 would dominate the tolerance
      pow_scalar_forward(data, p, y.data(), l);
      pow_scalar_forward_reference(data, p, y_ref.data(), l);
      EXPECT_TRUE(all_close(y, y_ref, 2e-6, 1e-6));
      std::vector<float> gx = random_floats(n, 11), gx_ref = gx;
      pow_scalar_backward(data, p, dy.data(), gx.data(), l);
      pow_scalar_backward_reference(data, p, dy.data(), gx_ref.data(), l);
      EXPECT_TRUE(all_close(gx, gx_ref, 2e-6, 1e-6));
    }
  }
}

TEST(ElementwiseKernel, BroadcastGradientIsTheSumOverBroadcastAxes) {
  // a [2, 3] + b [3]: db[j] = sum_i dy[i, j], da = dy; hand-computed.
  const Shape out{2, 3}, bs{3};
  const ElementwiseLayout l = binary_layout(out, out, contiguous_strides(out), bs, contiguous_strides(bs));
  const std::vector<float> dy = {1, 2, 3, 10, 20, 30};
  std::vector<float> da(6, 0.0f), db = {100, 0, 0};
  sub_backward(dy.data(), da.data(), db.data(), l);
  EXPECT_EQ(da, dy);
  EXPECT_EQ(db, (std::vector<float>{100 - 11, -22, -33}));
}

TEST(ElementwiseKernel, DivGradientHandValues) {
  // y = a / b at a = 3, b = 2: dy/da = 1/2, dy/db = -a/b^2 = -0.75.
  const float a = 3.0f, b = 2.0f, dy = 1.0f;
  float da = 0.0f, db = 0.0f, y = 0.0f;
  const ElementwiseLayout l = flat_layout(1);
  div_forward(&a, &b, &y, l);
  div_backward(&a, &b, &dy, &da, &db, l);
  EXPECT_FLOAT_EQ(y, 1.5f);
  EXPECT_FLOAT_EQ(da, 0.5f);
  EXPECT_FLOAT_EQ(db, -0.75f);
}

TEST(ElementwiseKernel, FirstNonpositiveFindsTheRowMajorIndex) {
  // A [2, 3] view of a transposed buffer: the row-major index, not the memory offset, is reported.
  const std::vector<float> mem = {1, 1, 1, 1, -2, 1};  // stored [3, 2]; view element [0, 2] is mem[4]
  const ElementwiseLayout l = unary_layout(Shape{2, 3}, Strides{1, 2, 0, 0});
  EXPECT_EQ(first_nonpositive(mem.data(), l), 2);
  const std::vector<float> ok = {1, 2, 3};
  EXPECT_EQ(first_nonpositive(ok.data(), flat_layout(3)), -1);
}

TEST(ElementwiseKernel, FillZeroCoversExactlyTheRange) {
  // Sizes below, at and across the threading threshold and the chunk size; one guard on each side.
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{17}, kParallelMinElements, int64_t{16384 * 3 + 5}}) {
    std::vector<float> buf(static_cast<size_t>(n + 2), 3.0f);
    fill_zero(buf.data() + 1, n);
    EXPECT_EQ(buf.front(), 3.0f) << n;
    EXPECT_EQ(buf.back(), 3.0f) << n;
    for (int64_t i = 1; i <= n; ++i) ASSERT_EQ(buf[static_cast<size_t>(i)], 0.0f) << "n " << n << " at " << i;
  }
}

}  // namespace
}  // namespace sinklab::kernels
