// kernels::matmul (oneDNN + cache + loop fallback) against its naive double-accumulating twin.
#include "core/cpu/cpu_description.h"
#include "core/kernels/matmul.h"
#include "core/kernels/matmul_reference.h"
#include "core/rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace sinklab::kernels {
namespace {

// Tolerance on the relative L2 error ||C - C_ref|| / ||S||, where S = |alpha| |A| |B| (+ |C_old|) is the
// scale float rounding errors are proportional to (plain ||C_ref|| is ill-conditioned for a 1x1
// result whose random terms cancel: measured 20 eps on M = N = 1, K = 64). Allowed:
// FLT_EPSILON * log(max(2, K)) * kToleranceFactor. Budget relative to S: rounding each product
// (eps/2), float accumulation over K terms (oneDNN sums in blocked vector lanes, the loop kernel
// sequentially; for random-sign data both grow like eps * sqrt(K / 24) <= eps * log(K) for K up to
// ~10^4), one rounding each for alpha and for the sum with C_old (eps/2 each): about
// 2 eps * log(max(2, K)) at worst for K in [1, 100]. The worst ratio measured over every case in this
// file is 0.68 (K = 3), so 2 keeps a 3x margin and still fails on any wrong element or stride.
constexpr double kToleranceFactor = 2.0;

double tolerance(int64_t k) { return kToleranceFactor * FLT_EPSILON * std::log(std::max(2.0, static_cast<double>(k))); }

// Elements one operand can touch: 1 + the largest offset.
int64_t span(const MatmulOperand& op) {
  int64_t last = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (op.dims[i] == 0) return 0;
    last += (op.dims[i] - 1) * op.strides[i];
  }
  return last + 1;
}

int64_t offset(const MatmulOperand& op, int64_t i0, int64_t i1, int64_t r, int64_t c) {
  return i0 * op.strides[0] + i1 * op.strides[1] + r * op.strides[2] + c * op.strides[3];
}

bool same_bits(float x, float y) { return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y); }

// Plain ||got - want|| / ||want||: fine for outputs with many elements (cancellation averages out).
double relative_l2(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0, norm = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    err += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
    norm += static_cast<double>(want[i]) * want[i];
  }
  return std::sqrt(err / norm);
}

MatmulOperand maybe_transposed(bool transpose, int64_t b0, int64_t b1, int64_t rows, int64_t cols) {
  return transpose ? transposed_view(dense_operand(b0, b1, cols, rows)) : dense_operand(b0, b1, rows, cols);
}

struct Problem {
  MatmulOperand a, b, c;
  bool accumulate = false;
  float alpha = 1.0f;
};

struct Outcome {
  double relative_error;
  bool outside_untouched;  // buffer elements outside C's view keep their bits
  bool all_finite;
};

// Random A, B (and C when accumulating; NaN otherwise, which a non-accumulating call must ignore) in
// buffers with guard elements on both sides; runs matmul and the reference on copies of C.
Outcome run_both(const Problem& p, uint64_t seed) {
  constexpr int64_t kGuard = 7;
  Rng rng(seed);
  std::vector<float> a(static_cast<size_t>(span(p.a) + 2 * kGuard));
  std::vector<float> b(static_cast<size_t>(span(p.b) + 2 * kGuard));
  std::vector<float> c(static_cast<size_t>(span(p.c) + 2 * kGuard));
  rng.fill_uniform(a, -1.0f, 1.0f);
  rng.fill_uniform(b, -1.0f, 1.0f);
  if (p.accumulate)
    rng.fill_uniform(c, -1.0f, 1.0f);
  else
    std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> before = c;
  std::vector<float> expected = c;
  matmul_reference(a.data() + kGuard, p.a, b.data() + kGuard, p.b, expected.data() + kGuard, p.c, p.accumulate,
                   p.alpha);
  // The scale rounding errors are proportional to: |alpha| |A| |B| (+ |C_old|), elementwise.
  const auto absolute = [](std::vector<float> v) {
    for (float& x : v) x = std::fabs(x);
    return v;
  };
  const std::vector<float> abs_a = absolute(a), abs_b = absolute(b);
  std::vector<float> scale = absolute(c);
  matmul_reference(abs_a.data() + kGuard, p.a, abs_b.data() + kGuard, p.b, scale.data() + kGuard, p.c, p.accumulate,
                   std::fabs(p.alpha));
  matmul(a.data() + kGuard, p.a, b.data() + kGuard, p.b, c.data() + kGuard, p.c, p.accumulate, p.alpha);

  std::vector<bool> in_view(c.size(), false);
  double err = 0.0, norm = 0.0;
  bool finite = true;
  for (int64_t i0 = 0; i0 < p.c.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < p.c.dims[1]; ++i1)
      for (int64_t r = 0; r < p.c.dims[2]; ++r)
        for (int64_t col = 0; col < p.c.dims[3]; ++col) {
          const auto at = static_cast<size_t>(kGuard + offset(p.c, i0, i1, r, col));
          in_view[at] = true;
          const double d = static_cast<double>(c[at]) - static_cast<double>(expected[at]);
          err += d * d;
          norm += static_cast<double>(scale[at]) * static_cast<double>(scale[at]);
          finite = finite && std::isfinite(c[at]);
        }
  bool untouched = true;
  for (size_t i = 0; i < c.size(); ++i)
    if (!in_view[i]) untouched = untouched && same_bits(c[i], before[i]);
  return {norm > 0.0 ? std::sqrt(err / norm) : std::sqrt(err), untouched, finite};
}

std::string name(const Problem& p) {
  auto dims = [](const MatmulOperand& op) {
    return "[" + std::to_string(op.dims[0]) + "," + std::to_string(op.dims[1]) + "," + std::to_string(op.dims[2]) +
           "," + std::to_string(op.dims[3]) + "]/[" + std::to_string(op.strides[0]) + "," +
           std::to_string(op.strides[1]) + "," + std::to_string(op.strides[2]) + "," + std::to_string(op.strides[3]) +
           "]";
  };
  return "A " + dims(p.a) + " B " + dims(p.b) + " C " + dims(p.c) + " acc=" + std::to_string(p.accumulate) +
         " alpha=" + std::to_string(p.alpha);
}

void expect_matches_reference(const Problem& p, uint64_t seed = 1) {
  const Outcome out = run_both(p, seed);
  const double tol = tolerance(p.a.dims[3]);
  EXPECT_LE(out.relative_error, tol) << name(p) << " via "
                                     << matmul_implementation(p.a, p.b, p.c, p.accumulate, p.alpha);
  EXPECT_TRUE(out.outside_untouched) << name(p);
  EXPECT_TRUE(out.all_finite) << name(p);
}

// --- correctness against the reference ---

TEST(MatmulKernel, OddShapesAllTranspositionsMatchReference) {
  // Every (M, N, K) with two of the four transposition pairs, rotating so each pair meets every size
  // (432 layouts; primitive creation dominates the run time, so the full 864 would double it).
  const int64_t sizes[] = {1, 3, 17, 33, 64, 100};
  uint64_t seed = 0;
  int rotation = 0;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : sizes) {
        for (int t : {rotation % 4, (rotation + 1) % 4}) {
          const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
          expect_matches_reference(
              {maybe_transposed(ta, 1, 1, m, k), maybe_transposed(tb, 1, 1, k, n), dense_operand(m, n)}, ++seed);
        }
        rotation += 3;  // coprime to 4 and to the 6 sizes: the pairs do not lock onto one size
      }
  clear_matmul_cache();  // do not leave hundreds of layouts to the other tests
}

TEST(MatmulKernel, Batched3DWithBroadcastWeights) {
  for (int t = 0; t < 4; ++t) {
    const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
    // [5, M, K] x [K, N] shared over the batch, and an unshared [5, K, N].
    expect_matches_reference(
        {maybe_transposed(ta, 1, 5, 17, 33), maybe_transposed(tb, 1, 1, 33, 3), dense_operand(1, 5, 17, 3)});
    expect_matches_reference(
        {maybe_transposed(ta, 1, 5, 17, 33), maybe_transposed(tb, 1, 5, 33, 3), dense_operand(1, 5, 17, 3)});
  }
}

TEST(MatmulKernel, Batched4DWithTwoBatchDimsAndBroadcast) {
  const int64_t b0 = 2, b1 = 3, m = 17, k = 33, n = 64;
  const MatmulOperand a = dense_operand(b0, b1, m, k), c = dense_operand(b0, b1, m, n);
  expect_matches_reference({a, dense_operand(b0, b1, k, n), c});
  expect_matches_reference({a, dense_operand(1, b1, k, n), c});                            // broadcast over batch0
  expect_matches_reference({a, dense_operand(b0, 1, k, n), c});                            // broadcast over batch1
  expect_matches_reference({a, transposed_view(dense_operand(1, 1, n, k)), c});            // over both, transposed
  expect_matches_reference({dense_operand(1, b1, m, k), dense_operand(b0, b1, k, n), c});  // A broadcast
  // A batch dim read with stride 0 is the same broadcast, and stays on the fast path.
  const MatmulOperand stride0_b{{b0, b1, k, n}, {0, k * n, n, 1}};
  expect_matches_reference({a, stride0_b, c});
  EXPECT_EQ(matmul_implementation(a, stride0_b, c, false).rfind("onednn:", 0), 0u);
}

TEST(MatmulKernel, AttentionHeadViewsOfInterleavedBuffers) {
  // qkv is [B, T, 3, H, d]; Q, K, V are its [B, H, T, d] head views, scores are dense [B, H, T, T],
  // and P x V is written straight into the heads of a [B, T, H*d] buffer.
  const int64_t batch = 2, heads = 3, t = 17, d = 8, row = 3 * heads * d;
  const MatmulOperand qk_view{{batch, heads, t, d}, {t * row, d, row, 1}};
  const MatmulOperand scores = dense_operand(batch, heads, t, t);
  const MatmulOperand out_view{{batch, heads, t, d}, {t * heads * d, d, heads * d, 1}};
  Rng rng(7);
  std::vector<float> qkv(static_cast<size_t>(batch * t * row));
  rng.fill_uniform(qkv, -1.0f, 1.0f);
  const float* q = qkv.data();
  const float* k = qkv.data() + heads * d;
  const float* v = qkv.data() + 2 * heads * d;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));

  std::vector<float> s(static_cast<size_t>(batch * heads * t * t)), s_ref(s.size());
  matmul(q, qk_view, k, transposed_view(qk_view), s.data(), scores, false, scale);
  matmul_reference(q, qk_view, k, transposed_view(qk_view), s_ref.data(), scores, false, scale);
  EXPECT_LE(relative_l2(s, s_ref), tolerance(d));

  std::vector<float> o(static_cast<size_t>(batch * t * heads * d), 0.0f), o_ref(o.size(), 0.0f);
  matmul(s.data(), scores, v, qk_view, o.data(), out_view, false);
  matmul_reference(s.data(), scores, v, qk_view, o_ref.data(), out_view, false);
  EXPECT_LE(relative_l2(o, o_ref), tolerance(t));
  // The same layouts through the generic harness, with guards around the output and accumulation.
  expect_matches_reference({scores, qk_view, out_view, true, 1.0f});
  expect_matches_reference({transposed_view(scores), out_view, out_view, true, 1.0f});  // dV = P^T dO
  EXPECT_EQ(matmul_implementation(scores, qk_view, out_view, false).rfind("onednn:", 0), 0u);
}

TEST(MatmulKernel, AccumulateAddsIntoNonZeroC) {
  for (float alpha : {1.0f, 0.5f, -2.0f})
    for (int t = 0; t < 4; ++t) {
      const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
      expect_matches_reference({maybe_transposed(ta, 1, 1, 33, 17), maybe_transposed(tb, 1, 1, 17, 100),
                                dense_operand(33, 100), true, alpha});
      expect_matches_reference({maybe_transposed(ta, 1, 4, 3, 64), maybe_transposed(tb, 1, 1, 64, 17),
                                dense_operand(1, 4, 3, 17), true, alpha});
    }
}

TEST(MatmulKernel, AlphaScalesWithoutAccumulate) {
  for (float alpha : {0.125f, -3.0f})
    expect_matches_reference(
        {dense_operand(17, 33), transposed_view(dense_operand(64, 33)), dense_operand(17, 64), false, alpha});
}

TEST(MatmulKernel, AlphaZeroGivesZeroOrLeavesC) {
  std::vector<float> a(12, 1.0f), b(12, 2.0f), c(9, 5.0f);
  matmul(a.data(), dense_operand(3, 4), b.data(), dense_operand(4, 3), c.data(), dense_operand(3, 3), true, 0.0f);
  for (float x : c) EXPECT_EQ(x, 5.0f);
  matmul(a.data(), dense_operand(3, 4), b.data(), dense_operand(4, 3), c.data(), dense_operand(3, 3), false, 0.0f);
  for (float x : c) EXPECT_EQ(x, 0.0f);
}

// --- which path a layout takes ---

TEST(MatmulKernel, CommonLayoutsStayOnOneDnn) {
  // At every ISA level (SINKLAB_MAX_ISA): brgemm from AVX-512 on, oneDNN's JIT gemm below it (which
  // takes alpha as an output scale, core/kernels/matmul.cpp). Never its reference kernel or the loop.
  const std::string jit = describe_cpu().onednn_isa.rfind("avx512_core", 0) == 0 ? "onednn:brg:" : "onednn:gemm:jit";
  for (int t = 0; t < 4; ++t) {
    const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
    const std::string impl = matmul_implementation(
        maybe_transposed(ta, 2, 3, 17, 33), maybe_transposed(tb, 1, 3, 33, 5), dense_operand(2, 3, 17, 5), true, 0.5f);
    EXPECT_EQ(impl.rfind(jit, 0), 0u) << impl;
  }
}

TEST(MatmulKernel, TransposedOutputIsComputedSwapped) {
  const Problem p{dense_operand(1, 2, 17, 33), dense_operand(1, 1, 33, 64),
                  transposed_view(dense_operand(1, 2, 64, 17)), true, 1.0f};
  EXPECT_EQ(matmul_implementation(p.a, p.b, p.c, p.accumulate, p.alpha).rfind("onednn-swapped:", 0), 0u);
  expect_matches_reference(p);
  expect_matches_reference({p.a, p.b, p.c, false, -0.5f});
}

TEST(MatmulKernel, LayoutsWithoutUnitStrideUseLoopKernel) {
  const int64_t m = 33, k = 17, n = 64;
  const MatmulOperand every_other_a{{1, 2, m, k}, {2 * m * k * 2, 2 * m * k, 2 * k, 2}};
  const MatmulOperand every_other_b{{1, 1, k, n}, {2 * k * n, 2 * k * n, 2 * n, 2}};
  const MatmulOperand every_other_c{{1, 2, m, n}, {4 * m * n, 2 * m * n, 2 * n, 2}};
  const MatmulOperand plain_a = dense_operand(1, 2, m, k), plain_c = dense_operand(1, 2, m, n);
  const MatmulOperand plain_b = dense_operand(k, n), b_t = transposed_view(dense_operand(n, k));
  const std::vector<Problem> cases = {
      {every_other_a, plain_b, plain_c},
      {plain_a, every_other_b, plain_c, true, 2.0f},
      {plain_a, plain_b, every_other_c},
      {transposed_view(dense_operand(1, 2, k, m)), b_t, every_other_c, true, 0.5f},
      {plain_a, {{1, 1, k, n}, {0, 0, 0, 1}}, plain_c},  // every row of B is the same row
  };
  for (const Problem& p : cases) {
    EXPECT_EQ(matmul_implementation(p.a, p.b, p.c, p.accumulate, p.alpha), "loop") << name(p);
    expect_matches_reference(p);
  }
  // Large enough for the loop kernel's parallel branch (> 1e6 flops), both inner-loop forms.
  const MatmulOperand strided_out{{1, 1, 100, 64}, {0, 0, 128, 2}};
  expect_matches_reference({dense_operand(100, 100), dense_operand(100, 64), strided_out});
  expect_matches_reference({dense_operand(100, 100), transposed_view(dense_operand(64, 100)), strided_out, true, 1.0f});
}

// --- the cache ---

TEST(MatmulKernel, SecondIdenticalCallIsACacheHit) {
  clear_matmul_cache();
  std::vector<float> a(17 * 33, 0.5f), b(33 * 5, 0.25f), c(17 * 5, 0.0f);
  const MatmulOperand al = dense_operand(17, 33), bl = dense_operand(33, 5), cl = dense_operand(17, 5);
  matmul(a.data(), al, b.data(), bl, c.data(), cl, false);
  MatmulCacheStats s = matmul_cache_stats();
  EXPECT_EQ(s.primitives, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 0u);

  matmul(a.data(), al, b.data(), bl, c.data(), cl, false);
  s = matmul_cache_stats();
  EXPECT_EQ(s.primitives, 1u) << "an identical call must not create a primitive";
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_FLOAT_EQ(c[0], 33 * 0.125f);

  // The unused stride of a size-1 dim does not make a new entry.
  matmul(a.data(), {{1, 1, 17, 33}, {12345, 999, 33, 1}}, b.data(), bl, c.data(), cl, false);
  EXPECT_EQ(matmul_cache_stats().hits, 2u);
  // alpha and accumulate are part of the key.
  matmul(a.data(), al, b.data(), bl, c.data(), cl, false, 2.0f);
  matmul(a.data(), al, b.data(), bl, c.data(), cl, true);
  s = matmul_cache_stats();
  EXPECT_EQ(s.primitives, 3u);
  EXPECT_EQ(s.misses, 3u);
  // A loop-kernel layout is cached as a decision, not as a primitive.
  const MatmulOperand strided_c{{1, 1, 17, 5}, {0, 0, 10, 2}};
  std::vector<float> wide(17 * 10, 0.0f);
  matmul(a.data(), al, b.data(), bl, wide.data(), strided_c, false);
  matmul(a.data(), al, b.data(), bl, wide.data(), strided_c, false);
  s = matmul_cache_stats();
  EXPECT_EQ(s.primitives, 3u);
  EXPECT_EQ(s.misses, 4u);
  EXPECT_EQ(s.hits, 3u);

  clear_matmul_cache();
  s = matmul_cache_stats();
  EXPECT_EQ(s.primitives + s.hits + s.misses, 0u);
}

TEST(MatmulKernel, ConcurrentCallersGetCorrectResults) {
  // Two std::threads with different shapes share the one engine/stream/cache.
  const auto work = [](int64_t n, uint64_t seed, bool* ok) {
    for (int rep = 0; rep < 20; ++rep) {
      const Outcome out =
          run_both({dense_operand(1, 2, n, 33), dense_operand(33, n), dense_operand(1, 2, n, n)}, seed + rep);
      *ok = *ok && out.relative_error <= tolerance(33) && out.outside_untouched;
    }
  };
  bool ok1 = true, ok2 = true;
  std::thread t1(work, 17, 100, &ok1), t2(work, 64, 200, &ok2);
  t1.join();
  t2.join();
  EXPECT_TRUE(ok1);
  EXPECT_TRUE(ok2);
}

// --- edges and errors ---

TEST(MatmulKernel, EmptyDimensions) {
  std::vector<float> c(12, 3.0f);
  // Nothing to write: C untouched, null inputs allowed.
  matmul(nullptr, dense_operand(0, 4), nullptr, dense_operand(4, 3), c.data(), dense_operand(0, 3), false);
  for (float x : c) EXPECT_EQ(x, 3.0f);
  // K = 0: an empty sum. Accumulating leaves C, otherwise C becomes 0.
  matmul(nullptr, dense_operand(4, 0), nullptr, dense_operand(0, 3), c.data(), dense_operand(4, 3), true);
  for (float x : c) EXPECT_EQ(x, 3.0f);
  matmul(nullptr, dense_operand(4, 0), nullptr, dense_operand(0, 3), c.data(), dense_operand(4, 3), false);
  for (float x : c) EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(matmul_implementation(dense_operand(4, 0), dense_operand(0, 3), dense_operand(4, 3), false), "empty");
}

template <typename F>
std::string invalid_argument_message(F&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no std::invalid_argument thrown>";
}

TEST(MatmulKernel, InconsistentLayoutsThrowWithShapes) {
  std::vector<float> buf(1000, 1.0f);
  float* p = buf.data();
  const auto call = [p](const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c) {
    return invalid_argument_message([&] { matmul(p, a, p + 300, b, p + 600, c, false); });
  };
  std::string msg = call(dense_operand(3, 4), dense_operand(5, 2), dense_operand(3, 2));
  EXPECT_NE(msg.find("inner dimensions disagree"), std::string::npos) << msg;
  EXPECT_NE(msg.find("A [1,1,3,4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("B [1,1,5,2]"), std::string::npos) << msg;
  msg = call(dense_operand(3, 4), dense_operand(4, 2), dense_operand(2, 2));
  EXPECT_NE(msg.find("C has 2 rows but A has 3"), std::string::npos) << msg;
  msg = call(dense_operand(3, 4), dense_operand(4, 2), dense_operand(3, 5));
  EXPECT_NE(msg.find("C has 5 columns but B has 2"), std::string::npos) << msg;
  msg = call(dense_operand(1, 2, 3, 4), dense_operand(1, 3, 4, 2), dense_operand(1, 2, 3, 2));
  EXPECT_NE(msg.find("batch dim 1 of B"), std::string::npos) << msg;
  msg = call(dense_operand(2, 1, 3, 4), dense_operand(4, 2), dense_operand(3, 1, 3, 2));
  EXPECT_NE(msg.find("batch dim 0 of A"), std::string::npos) << msg;
  msg = call({{1, 1, 3, 4}, {12, 12, -4, 1}}, dense_operand(4, 2), dense_operand(3, 2));
  EXPECT_NE(msg.find("negative stride"), std::string::npos) << msg;
  msg = call(dense_operand(3, 4), dense_operand(4, 2), {{1, 1, 3, 2}, {6, 6, 1, 1}});
  EXPECT_NE(msg.find("overlap"), std::string::npos) << msg;
  msg = invalid_argument_message(
      [] { matmul(nullptr, dense_operand(3, 4), nullptr, dense_operand(4, 2), nullptr, dense_operand(3, 2), false); });
  EXPECT_NE(msg.find("null data pointer"), std::string::npos) << msg;
  // The reference twin validates identically.
  msg = invalid_argument_message(
      [p] { matmul_reference(p, dense_operand(3, 4), p, dense_operand(5, 2), p, dense_operand(3, 2), false); });
  EXPECT_NE(msg.find("inner dimensions disagree"), std::string::npos) << msg;
}

#ifdef SINKLAB_HAVE_OPENMP
void call_matmul_inside_parallel_region() {
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(8, 0.0f);
#pragma omp parallel num_threads(2)
  matmul(a.data(), dense_operand(2, 2), b.data(), dense_operand(2, 2), c.data() + 4 * omp_get_thread_num(),
         dense_operand(2, 2), false);
}

TEST(MatmulKernelDeathTest, AbortsInsideOpenMPParallelRegion) {
  if (omp_get_thread_limit() < 2) GTEST_SKIP() << "OMP_THREAD_LIMIT < 2: no parallel region possible";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(call_matmul_inside_parallel_region(), "OpenMP parallel region");
}
#endif

}  // namespace
}  // namespace sinklab::kernels
