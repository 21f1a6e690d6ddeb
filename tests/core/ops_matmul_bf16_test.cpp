// The matmul ops under a graph's bf16 precision (train.precision: bf16): the forward product and both
// gradients of every layout the ops route differently, against float64 sums of the bf16-rounded operands
// (what the ops must compute, to float32 accumulation) and of the unrounded ones (the stated bf16
// tolerance); float32 accumulation in the forward and in the backward; the backward keeping the forward's
// precision after the scope ended. The kernel itself is tested in matmul_bf16_kernel_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/kernels/matmul_bf16.h"
#include "core/ops/matmul_op.h"
#include "core/rng.h"

namespace sinklab {
namespace {

using kernels::round_to_bf16;

// Unit roundoffs of float32 and bf16.
constexpr double kFloatUnit = 0x1p-24;
constexpr double kBf16Unit = 0x1p-8;

// Tolerances per element, with S = sum of |terms| added into it and n their count:
// - against float64 of the bf16-rounded operands the products are exact in float32 (8 + 8 significand bits),
//   so only the float32 additions err: (n + 2) * 2^-24 * S;
// - against float64 of the unrounded operands each factor is within 2^-8 relative of its bf16 value:
//   (2 * 2^-8 + 2^-16) * S more.
double rounded_bound(int64_t n) { return static_cast<double>(n + 2) * kFloatUnit; }
double unrounded_bound(int64_t n) { return 2.0 * kBf16Unit + kBf16Unit * kBf16Unit + rounded_bound(n); }

// One product layout in index form: c[bc, i, j] = alpha * sum_r a[a_at(bc, i, r)] * b[b_at(bc, r, j)] with
// c contiguous [batches, m, n]; a and b are the leaves' flat arrays.
struct Layout {
  std::string name;
  Shape a_shape, b_shape;
  int64_t batches, m, n, r;
  float alpha;
  std::function<int64_t(int64_t, int64_t, int64_t)> a_at, b_at;
  std::function<Tensor(Graph&, const Tensor&, const Tensor&)> op;
};

std::vector<Layout> layouts() {
  const int64_t M = 5, K = 96, N = 7, B = 3;
  std::vector<Layout> out;
  out.push_back({"plain [M, K] x [K, N]", Shape{M, K}, Shape{K, N}, 1, M, N, K, 1.0f,
                 [=](int64_t, int64_t i, int64_t r) { return i * K + r; },
                 [=](int64_t, int64_t r, int64_t j) { return r * N + j; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul(g, a, b); }});
  out.push_back({"transposed views with alpha", Shape{K, M}, Shape{N, K}, 1, M, N, K, 1.5f,
                 [=](int64_t, int64_t i, int64_t r) { return r * M + i; },
                 [=](int64_t, int64_t r, int64_t j) { return j * K + r; },
                 [](Graph& g, const Tensor& a, const Tensor& b) {
                   return matmul(g, a.transpose(0, 1), b.transpose(0, 1), 1.5f);
                 }});
  out.push_back({"a Linear: [B, T, C] x W^T, W [N, C]", Shape{B, M, K}, Shape{N, K}, B, M, N, K, 1.0f,
                 [=](int64_t bc, int64_t i, int64_t r) { return (bc * M + i) * K + r; },
                 [=](int64_t, int64_t r, int64_t j) { return j * K + r; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul(g, a, b.transpose(0, 1)); }});
  out.push_back({"one input, every head's weight: [T, C] x [H, C, D]", Shape{M, K}, Shape{B, K, N}, B, M, N, K,
                 0.75f, [=](int64_t, int64_t i, int64_t r) { return i * K + r; },
                 [=](int64_t bc, int64_t r, int64_t j) { return (bc * K + r) * N + j; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul(g, a, b, 0.75f); }});
  out.push_back({"batched [B, M, K] x [B, K, N]", Shape{B, M, K}, Shape{B, K, N}, B, M, N, K, 1.0f,
                 [=](int64_t bc, int64_t i, int64_t r) { return (bc * M + i) * K + r; },
                 [=](int64_t bc, int64_t r, int64_t j) { return (bc * K + r) * N + j; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul(g, a, b); }});
  // A weight shared over a permuted 4-D batch whose rows cannot merge: one product per batch index.
  // Leaf a [Q=3, P=2, M, K] read as [P, Q, M, K]; c [P, Q, M, N], batch index bc = p * Q + q.
  out.push_back({"a weight over an unmergeable permuted batch", Shape{3, 2, M, K}, Shape{K, N}, 6, M, N, K, 1.0f,
                 [=](int64_t bc, int64_t i, int64_t r) { return ((bc % 3) * 2 + bc / 3) * M * K + i * K + r; },
                 [=](int64_t, int64_t r, int64_t j) { return r * N + j; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul(g, a.permute({1, 0, 2, 3}), b); }});
  // sum_g a[g] x b[g]: the reduction runs over (g, k), r = g * K + k.
  out.push_back({"matmul_sum_over_batch", Shape{B, M, K}, Shape{B, K, N}, 1, M, N, B * K, 1.0f,
                 [=](int64_t, int64_t i, int64_t r) { return ((r / K) * M + i) * K + r % K; },
                 [=](int64_t, int64_t r, int64_t j) { return ((r / K) * K + r % K) * N + j; },
                 [](Graph& g, const Tensor& a, const Tensor& b) { return matmul_sum_over_batch(g, a, b); }});
  return out;
}

std::vector<float> uniform(int64_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
  return v;
}

// A float64 sum with its absolute terms and count, for one element.
struct Sum {
  double value = 0, magnitude = 0;
  int64_t terms = 0;
  void add(double x) {
    value += x;
    magnitude += std::abs(x);
    ++terms;
  }
};

double rounded(float x, bool round) { return round ? static_cast<double>(round_to_bf16(x)) : static_cast<double>(x); }

// Float64 references of c, grad_a and grad_b, with the operands rounded to bf16 or not.
struct Reference {
  std::vector<Sum> c, grad_a, grad_b;
};
Reference reference(const Layout& l, const std::vector<float>& a, const std::vector<float>& b,
                    const std::vector<float>& seed, bool round) {
  Reference ref;
  ref.c.resize(static_cast<size_t>(l.batches * l.m * l.n));
  ref.grad_a.resize(a.size());
  ref.grad_b.resize(b.size());
  for (int64_t bc = 0; bc < l.batches; ++bc)
    for (int64_t i = 0; i < l.m; ++i)
      for (int64_t j = 0; j < l.n; ++j) {
        const auto ci = static_cast<size_t>((bc * l.m + i) * l.n + j);
        const double gc = rounded(seed[ci], round);
        for (int64_t r = 0; r < l.r; ++r) {
          const auto ai = static_cast<size_t>(l.a_at(bc, i, r)), bi = static_cast<size_t>(l.b_at(bc, r, j));
          ref.c[ci].add(l.alpha * rounded(a[ai], round) * rounded(b[bi], round));
          ref.grad_a[ai].add(l.alpha * gc * rounded(b[bi], round));  // grad_c x b^T
          ref.grad_b[bi].add(l.alpha * rounded(a[ai], round) * gc);  // a^T x grad_c
        }
      }
  return ref;
}

// The largest error over the element's bound; above 1 fails.
double worst_ratio(const float* got, const std::vector<Sum>& want, double (*bound)(int64_t)) {
  double worst = 0;
  for (size_t e = 0; e < want.size(); ++e) {
    const double allowed = bound(want[e].terms) * want[e].magnitude;
    worst = std::max(worst, std::abs(static_cast<double>(got[e]) - want[e].value) / std::max(allowed, 1e-30));
  }
  return worst;
}

TEST(OpsMatmulBf16, ForwardAndGradientsOfEveryLayoutAgainstFloat64) {
  uint64_t seed_value = 7;
  for (const Layout& l : layouts()) {
    SCOPED_TRACE(l.name);
    std::vector<float> a = uniform(l.a_shape.numel(), ++seed_value), b = uniform(l.b_shape.numel(), ++seed_value);
    const std::vector<float> seed = uniform(l.batches * l.m * l.n, ++seed_value);
    std::vector<float> grad_a(a.size(), 0.0f), grad_b(b.size(), 0.0f);
    Graph g;
    Tensor c;
    {
      const MatmulPrecisionScope bf16(g, MatmulPrecision::bf16);
      c = l.op(g, Tensor(a.data(), grad_a.data(), l.a_shape), Tensor(b.data(), grad_b.data(), l.b_shape));
    }
    ASSERT_EQ(g.matmul_precision(), MatmulPrecision::float32) << "the scope restores the graph's precision";
    ASSERT_EQ(c.numel(), static_cast<int64_t>(seed.size()));
    g.backward(c, seed);  // after the scope: the nodes keep the precision their forward ran in

    const Reference exact = reference(l, a, b, seed, /*round=*/true);
    const Reference unrounded = reference(l, a, b, seed, /*round=*/false);
    EXPECT_LE(worst_ratio(c.data(), exact.c, rounded_bound), 1.0) << "forward vs rounded operands";
    EXPECT_LE(worst_ratio(grad_a.data(), exact.grad_a, rounded_bound), 1.0) << "grad_a vs rounded operands";
    EXPECT_LE(worst_ratio(grad_b.data(), exact.grad_b, rounded_bound), 1.0) << "grad_b vs rounded operands";
    EXPECT_LE(worst_ratio(c.data(), unrounded.c, unrounded_bound), 1.0) << "forward, bf16 tolerance";
    EXPECT_LE(worst_ratio(grad_a.data(), unrounded.grad_a, unrounded_bound), 1.0) << "grad_a, bf16 tolerance";
    EXPECT_LE(worst_ratio(grad_b.data(), unrounded.grad_b, unrounded_bound), 1.0) << "grad_b, bf16 tolerance";
    // The first three checks can fail: float32 products of the unrounded operands miss the rounded sums
    // by far more than float32 accumulation allows.
    std::vector<float> c_unrounded(exact.c.size());
    for (size_t e = 0; e < c_unrounded.size(); ++e) c_unrounded[e] = static_cast<float>(unrounded.c[e].value);
    EXPECT_GT(worst_ratio(c_unrounded.data(), exact.c, rounded_bound), 10.0) << "the data cannot tell bf16 apart";
  }
}

TEST(OpsMatmulBf16, Float32PrecisionIsUnchanged) {
  // The default precision computes float32 products: the unrounded reference to float32 accumulation.
  for (const Layout& l : layouts()) {
    SCOPED_TRACE(l.name);
    std::vector<float> a = uniform(l.a_shape.numel(), 101), b = uniform(l.b_shape.numel(), 102);
    const std::vector<float> seed = uniform(l.batches * l.m * l.n, 103);
    std::vector<float> grad_a(a.size(), 0.0f), grad_b(b.size(), 0.0f);
    Graph g;
    const Tensor c = l.op(g, Tensor(a.data(), grad_a.data(), l.a_shape), Tensor(b.data(), grad_b.data(), l.b_shape));
    g.backward(c, seed);
    const Reference unrounded = reference(l, a, b, seed, /*round=*/false);
    const auto float32_bound = [](int64_t n) { return rounded_bound(n) + 2 * kFloatUnit; };
    EXPECT_LE(worst_ratio(c.data(), unrounded.c, float32_bound), 1.0);
    EXPECT_LE(worst_ratio(grad_a.data(), unrounded.grad_a, float32_bound), 1.0);
    EXPECT_LE(worst_ratio(grad_b.data(), unrounded.grad_b, float32_bound), 1.0);
  }
}

// 4096 products of 1 x 1 and 1 x (1 + 2^-7), exact bf16 values: every partial sum is a multiple of 2^-7
// below 2^13, exact in float32 in any order, and the total is 4112. A bf16 accumulator stalls at 256.
float alternating(int64_t index) { return index % 2 == 0 ? 1.0f : 1.0f + 0x1p-7f; }

TEST(OpsMatmulBf16, ForwardAndBackwardAccumulateInFloat32) {
  const int64_t L = 4096, S = 8;
  {  // forward: c [S, S] = a [S, L] x b [L, S], and grad_b = a^T x grad_c sums over S rows only
    std::vector<float> a(static_cast<size_t>(S * L), 1.0f), b(static_cast<size_t>(L * S));
    for (int64_t r = 0; r < L; ++r)
      for (int64_t j = 0; j < S; ++j) b[static_cast<size_t>(r * S + j)] = alternating(r);
    Graph g;
    const MatmulPrecisionScope bf16(g, MatmulPrecision::bf16);
    const Tensor c = matmul(g, Tensor(a.data(), nullptr, {S, L}), Tensor(b.data(), nullptr, {L, S}));
    for (int64_t e = 0; e < c.numel(); ++e) ASSERT_EQ(c.data()[e], 4112.0f) << "forward element " << e;
  }
  {  // backward: c [L, S] = a [L, S] x b [S, S]; grad_b = a^T [S, L] x grad_c [L, S] sums over L
    std::vector<float> a(static_cast<size_t>(L * S)), b(static_cast<size_t>(S * S), 1.0f);
    std::vector<float> grad_b(b.size(), 0.0f), seed(static_cast<size_t>(L * S), 1.0f);
    for (int64_t i = 0; i < L; ++i)
      for (int64_t k = 0; k < S; ++k) a[static_cast<size_t>(i * S + k)] = alternating(i);
    Graph g;
    const MatmulPrecisionScope bf16(g, MatmulPrecision::bf16);
    const Tensor c = matmul(g, Tensor(a.data(), nullptr, {L, S}), Tensor(b.data(), grad_b.data(), {S, S}));
    g.backward(c, seed);
    for (size_t e = 0; e < grad_b.size(); ++e) ASSERT_EQ(grad_b[e], 4112.0f) << "grad_b element " << e;
  }
  {  // backward: c [S, L] = a [S, S] x b [S, L]; grad_a = grad_c [S, L] x b^T [L, S] sums over L
    std::vector<float> a(static_cast<size_t>(S * S), 1.0f), b(static_cast<size_t>(S * L));
    std::vector<float> grad_a(a.size(), 0.0f), seed(static_cast<size_t>(S * L), 1.0f);
    for (int64_t k = 0; k < S; ++k)
      for (int64_t j = 0; j < L; ++j) b[static_cast<size_t>(k * L + j)] = alternating(j);
    Graph g;
    const MatmulPrecisionScope bf16(g, MatmulPrecision::bf16);
    const Tensor c = matmul(g, Tensor(a.data(), grad_a.data(), {S, S}), Tensor(b.data(), nullptr, {S, L}));
    g.backward(c, seed);
    for (size_t e = 0; e < grad_a.size(); ++e) ASSERT_EQ(grad_a[e], 4112.0f) << "grad_a element " << e;
  }
}

TEST(OpsMatmulBf16, RoundsEveryOperandOfForwardAndBackward) {
  // 1 + 2^-10 is not a bf16 value (it rounds to 1): under bf16 every product sees 1.
  const float x = 1.0f + 0x1p-10f;
  float a[1] = {x}, b[1] = {x}, grad_a[1] = {0}, grad_b[1] = {0};
  const float seed[1] = {x};
  Graph g;
  Tensor c;
  {
    const MatmulPrecisionScope bf16(g, MatmulPrecision::bf16);
    c = matmul(g, Tensor(a, grad_a, {1, 1}), Tensor(b, grad_b, {1, 1}));
  }
  g.backward(c, seed);
  EXPECT_EQ(c.data()[0], 1.0f);
  EXPECT_EQ(grad_a[0], 1.0f) << "grad_c and b rounded";
  EXPECT_EQ(grad_b[0], 1.0f) << "a and grad_c rounded";
  // The same graph back in float32 computes the float32 product.
  g.reset();
  grad_a[0] = grad_b[0] = 0;
  const Tensor c32 = matmul(g, Tensor(a, grad_a, {1, 1}), Tensor(b, grad_b, {1, 1}));
  g.backward(c32, seed);
  EXPECT_EQ(c32.data()[0], x * x);
  EXPECT_EQ(grad_a[0], x * x);
}

}  // namespace
}  // namespace sinklab
