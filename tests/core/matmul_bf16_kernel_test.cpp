// kernels::matmul_bf16: bf16 inputs, float32 accumulation, against float64 loops over the rounded and the
// unrounded inputs; the rounding itself on hand-picked bit patterns; the steady state; thread independence.
#include "core/cpu/cpu_description.h"
#include "core/cpu/isa_level.h"
#include "core/kernels/matmul.h"
#include "core/kernels/matmul_bf16.h"
#include "core/rng.h"
#include "core/thread_count.h"
#include "tests/core/allocation_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sinklab::kernels {
namespace {

// Unit roundoffs: float32 (24-bit significand) and bf16 (8-bit significand).
constexpr double kFloatUnit = 0x1p-24;
constexpr double kBf16Unit = 0x1p-8;

// Tolerances. Per element, with S = |alpha| sum_k |a_k b_k| + |C_old| over the inputs the kernel multiplies:
// - against float64 of the bf16-ROUNDED inputs, the products are exact in float32 (8 + 8 significand bits), so
//   the only errors are float32 additions: the classic bound (K + 2) * 2^-24 * S (K - 1 additions, the alpha
//   scaling and the sum with C_old). That bound is safe but loose (it cannot tell float32 from unrounded
//   inputs at K = 3072), so the relative L2 error ||C - C_ref|| / ||S|| is held as well to kernels::matmul's
//   tolerance, 2 * FLT_EPSILON * log(max(2, K)) (derivation in matmul_kernel_test.cpp). Products of UNROUNDED
//   inputs differ from the rounded ones by ~2^-9 each, i.e. ~30x that tolerance at K = 64 and more at larger K.
// - against float64 of the UNROUNDED inputs: each input is within 2^-8 relative of its bf16 value, so each
//   product within (2 * 2^-8 + 2^-16), plus the float32 part above.
double rounded_bound(int64_t k) { return static_cast<double>(k + 2) * kFloatUnit; }
double unrounded_bound(int64_t k) { return 2.0 * kBf16Unit + kBf16Unit * kBf16Unit + rounded_bound(k); }
double l2_tolerance(int64_t k) {
  return 2.0 * static_cast<double>(std::numeric_limits<float>::epsilon()) *
         std::log(std::max(2.0, static_cast<double>(k)));
}

int64_t span(const MatmulOperand& op) {
  int64_t last = 0;
  for (size_t i = 0; i < 4; ++i) {
    if (op.dims[i] == 0) return 0;
    last += (op.dims[i] - 1) * op.strides[i];
  }
  return last + 1;
}

int64_t offset(const MatmulOperand& op, int64_t i0, int64_t i1, int64_t r, int64_t c) {
  // A size-1 batch dim broadcasts: its index is 0 whatever C's is.
  return (op.dims[0] == 1 ? 0 : i0) * op.strides[0] + (op.dims[1] == 1 ? 0 : i1) * op.strides[1] +
         r * op.strides[2] + c * op.strides[3];
}

MatmulOperand maybe_transposed(bool transpose, int64_t b0, int64_t b1, int64_t rows, int64_t cols) {
  return transpose ? transposed_view(dense_operand(b0, b1, cols, rows)) : dense_operand(b0, b1, rows, cols);
}

struct Problem {
  MatmulOperand a, b, c;
  bool accumulate = false;
  float alpha = 1.0f;
};

std::string name(const Problem& p) {
  const auto dims = [](const MatmulOperand& op) {
    std::string s = "[";
    for (size_t i = 0; i < 4; ++i) s += std::to_string(op.dims[i]) + (i < 3 ? "," : "]/[");
    for (size_t i = 0; i < 4; ++i) s += std::to_string(op.strides[i]) + (i < 3 ? "," : "]");
    return s;
  };
  return "A " + dims(p.a) + " B " + dims(p.b) + " C " + dims(p.c) + " acc=" + std::to_string(p.accumulate) +
         " alpha=" + std::to_string(p.alpha) + " via " +
         matmul_bf16_implementation(p.a, p.b, p.c, p.accumulate, p.alpha);
}

// C_ref = alpha * A x B (+ C_old) in float64, and the scale S = |alpha| |A| |B| (+ |C_old|), per element of C.
struct Reference {
  std::vector<double> value, scale;
};

Reference reference(const Problem& p, const std::vector<float>& a, const std::vector<float>& b,
                    const std::vector<float>& c_old) {
  Reference ref{std::vector<double>(c_old.size(), 0.0), std::vector<double>(c_old.size(), 0.0)};
  const int64_t k = p.a.dims[3];
  for (int64_t i0 = 0; i0 < p.c.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < p.c.dims[1]; ++i1)
      for (int64_t r = 0; r < p.c.dims[2]; ++r)
        for (int64_t col = 0; col < p.c.dims[3]; ++col) {
          double sum = 0.0, abs_sum = 0.0;
          for (int64_t kk = 0; kk < k; ++kk) {
            const double x = a[static_cast<size_t>(offset(p.a, i0, i1, r, kk))];
            const double y = b[static_cast<size_t>(offset(p.b, i0, i1, kk, col))];
            sum += x * y;
            abs_sum += std::fabs(x * y);
          }
          const auto at = static_cast<size_t>(offset(p.c, i0, i1, r, col));
          const double old = p.accumulate ? c_old[at] : 0.0;
          ref.value[at] = p.alpha * sum + old;
          ref.scale[at] = std::fabs(p.alpha) * abs_sum + std::fabs(old);
        }
  return ref;
}

std::vector<float> rounded(std::vector<float> v) {
  for (float& x : v) x = round_to_bf16(x);
  return v;
}

struct Errors {
  double worst_rounded = 0.0;    // max |C - C_ref(rounded inputs)| / S
  double worst_unrounded = 0.0;  // max |C - C_ref(unrounded inputs)| / S
  double l2_rounded = 0.0;       // ||C - C_ref(rounded inputs)|| / ||S||
  bool outside_untouched = true;
};

// Random A, B, C_old (NaN C when not accumulating: the kernel must ignore it); runs matmul_bf16 once.
Errors run(const Problem& p, uint64_t seed) {
  Rng rng(seed);
  std::vector<float> a(static_cast<size_t>(span(p.a))), b(static_cast<size_t>(span(p.b)));
  std::vector<float> c(static_cast<size_t>(span(p.c)));
  rng.fill_uniform(a, -1.0f, 1.0f);
  rng.fill_uniform(b, -1.0f, 1.0f);
  if (p.accumulate)
    rng.fill_uniform(c, -1.0f, 1.0f);
  else
    std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> before = c;
  const Reference exact = reference(p, a, b, c), of_rounded = reference(p, rounded(a), rounded(b), c);
  matmul_bf16(a.data(), p.a, b.data(), p.b, c.data(), p.c, p.accumulate, p.alpha);
  Errors e;
  std::vector<bool> in_view(c.size(), false);
  double err2 = 0.0, scale2 = 0.0;
  for (int64_t i0 = 0; i0 < p.c.dims[0]; ++i0)
    for (int64_t i1 = 0; i1 < p.c.dims[1]; ++i1)
      for (int64_t r = 0; r < p.c.dims[2]; ++r)
        for (int64_t col = 0; col < p.c.dims[3]; ++col) {
          const auto at = static_cast<size_t>(offset(p.c, i0, i1, r, col));
          in_view[at] = true;
          const double got = c[at], s = of_rounded.scale[at];
          const double d = std::isfinite(got) ? got - of_rounded.value[at] : std::numeric_limits<double>::infinity();
          e.worst_rounded = std::max(e.worst_rounded, std::fabs(d) / s);
          const double du = std::isfinite(got) ? got - exact.value[at] : std::numeric_limits<double>::infinity();
          e.worst_unrounded = std::max(e.worst_unrounded, std::fabs(du) / exact.scale[at]);
          err2 += d * d;
          scale2 += s * s;
        }
  e.l2_rounded = std::sqrt(err2 / scale2);
  for (size_t i = 0; i < c.size(); ++i)
    if (!in_view[i] && std::bit_cast<uint32_t>(c[i]) != std::bit_cast<uint32_t>(before[i])) e.outside_untouched = false;
  return e;
}

void expect_within_bounds(const Problem& p, uint64_t seed = 1) {
  const int64_t k = p.a.dims[3];
  const Errors e = run(p, seed);
  EXPECT_LE(e.worst_rounded, rounded_bound(k)) << name(p);
  EXPECT_LE(e.l2_rounded, l2_tolerance(k)) << name(p);
  EXPECT_LE(e.worst_unrounded, unrounded_bound(k)) << name(p);
  EXPECT_TRUE(e.outside_untouched) << name(p);
}

// --- accuracy against float64 ---

TEST(MatmulBf16Kernel, AllTranspositionsMatchTheRoundedInputsToFloat32Accuracy) {
  const int64_t sizes[] = {1, 3, 17, 64};
  uint64_t seed = 0;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : {int64_t{1}, int64_t{33}, int64_t{100}})
        for (int t = 0; t < 4; ++t)
          expect_within_bounds({maybe_transposed((t & 1) != 0, 1, 1, m, k),
                                maybe_transposed((t & 2) != 0, 1, 1, k, n), dense_operand(m, n)},
                               ++seed);
}

TEST(MatmulBf16Kernel, LongSumsK3072AndGpt2Shapes) {
  // GPT-2-small's MLP down-projection has K = 3072; its weights are read transposed in the backward pass.
  expect_within_bounds({dense_operand(16, 3072), dense_operand(3072, 40), dense_operand(16, 40)});
  expect_within_bounds({dense_operand(16, 3072), transposed_view(dense_operand(40, 3072)), dense_operand(16, 40)});
  expect_within_bounds(
      {transposed_view(dense_operand(3072, 24)), dense_operand(3072, 40), dense_operand(24, 40), true});
  expect_within_bounds({dense_operand(64, 768), dense_operand(768, 96), dense_operand(64, 96), true, 0.125f});
}

TEST(MatmulBf16Kernel, AccumulateAndAlpha) {
  for (bool accumulate : {false, true})
    for (float alpha : {1.0f, -0.5f, 3.0f})
      expect_within_bounds({dense_operand(17, 33), transposed_view(dense_operand(5, 33)), dense_operand(17, 5),
                            accumulate, alpha});
}

TEST(MatmulBf16Kernel, BatchedBroadcastAndStridedOperands) {
  const int64_t b0 = 2, b1 = 3, m = 17, k = 33, n = 20;
  const MatmulOperand a = dense_operand(b0, b1, m, k), c = dense_operand(b0, b1, m, n);
  expect_within_bounds({a, dense_operand(b0, b1, k, n), c});
  expect_within_bounds({a, dense_operand(1, b1, k, n), c});                  // B broadcast over batch0
  expect_within_bounds({a, transposed_view(dense_operand(1, 1, n, k)), c});  // over both, transposed
  expect_within_bounds({dense_operand(1, b1, m, k), dense_operand(b0, b1, k, n), c, true, 0.5f});  // A broadcast
  expect_within_bounds({a, MatmulOperand{{b0, b1, k, n}, {0, k * n, n, 1}}, c});  // stride-0 batch dim
  // Head views of interleaved buffers: A and C [B, H, T, d] inside [B, T, H*d] rows.
  const int64_t heads = 3, t = 17, d = 8;
  const MatmulOperand head_view{{2, heads, t, d}, {t * heads * d, d, heads * d, 1}};
  expect_within_bounds({head_view, transposed_view(head_view), dense_operand(2, heads, t, t)});
  expect_within_bounds({dense_operand(2, heads, t, t), head_view, head_view, true});
  // No unit stride anywhere (every other element), a padded row, a transposed C, every other column of C.
  expect_within_bounds({MatmulOperand{{1, 1, m, k}, {0, 0, 2 * k, 2}}, MatmulOperand{{1, 1, k, n}, {0, 0, 1, 2 * k}},
                        MatmulOperand{{1, 1, m, n}, {0, 0, n + 5, 1}}, true, 2.0f});
  expect_within_bounds({dense_operand(m, k), dense_operand(k, n), transposed_view(dense_operand(n, m))});
  expect_within_bounds({dense_operand(m, k), dense_operand(k, n), MatmulOperand{{1, 1, m, n}, {0, 0, 2 * n, 2}}, true});
  // The gradient of a per-head projection weight stored [C, H*d] and viewed as [H, d, C] (columns of unit
  // stride in every head): the swapped path, with C_old.
  const int64_t tokens = 24, channels = 40;
  expect_within_bounds({MatmulOperand{{1, heads, d, tokens}, {0, tokens * d, 1, d}}, dense_operand(tokens, channels),
                        MatmulOperand{{1, heads, d, channels}, {0, d, 1, heads * d}}, true});
}

// --- what float32 accumulation is for ---

TEST(MatmulBf16Kernel, AccumulatesInFloat32NotBf16) {
  // 4096 products of 1 x 1 and 1 x (1 + 2^-7) (all exact bf16 values): the sum is 4096 + 2048 * 2^-7 = 4112,
  // and every partial sum is a multiple of 2^-7 below 2^13, exact in float32 in any order. A bf16 accumulator
  // stalls at 256 (256 + 1 rounds back to 256: bf16 has 8 significant bits).
  const int64_t m = 8, k = 4096, n = 16;
  std::vector<float> a(static_cast<size_t>(m * k), 1.0f), b(static_cast<size_t>(k * n));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) b[static_cast<size_t>(kk * n + j)] = kk % 2 == 0 ? 1.0f : 1.0f + 0x1p-7f;
  std::vector<float> c(static_cast<size_t>(m * n), -1.0f);
  matmul_bf16(a.data(), dense_operand(m, k), b.data(), dense_operand(k, n), c.data(), dense_operand(m, n), false);
  for (float x : c) ASSERT_EQ(x, 4112.0f) << matmul_bf16_implementation(dense_operand(m, k), dense_operand(k, n),
                                                                          dense_operand(m, n), false);
  // Accumulating onto C_old = 0.5 keeps float32 too, and alpha scales the float32 sum.
  std::fill(c.begin(), c.end(), 0.5f);
  matmul_bf16(a.data(), dense_operand(m, k), b.data(), dense_operand(k, n), c.data(), dense_operand(m, n), true, 0.25f);
  for (float x : c) ASSERT_EQ(x, 1028.5f);
}

// --- the rounding ---

struct Pattern {
  uint32_t in;
  uint16_t out;
  const char* what;
};

const Pattern kPatterns[] = {
    {0x3f800000u, 0x3f80u, "1: exact"},
    {0x3f807fffu, 0x3f80u, "just below half an ulp: down"},
    {0x3f808000u, 0x3f80u, "tie, even below: down"},
    {0x3f808001u, 0x3f81u, "just above the tie: up"},
    {0x3f818000u, 0x3f82u, "tie, odd below: up to even"},
    {0xbfc08000u, 0xbfc0u, "negative tie, even below"},
    {0xbfc18000u, 0xbfc2u, "negative tie, odd below"},
    {0x00000000u, 0x0000u, "+0"},
    {0x80000000u, 0x8000u, "-0"},
    {0x7f800000u, 0x7f80u, "+inf"},
    {0xff800000u, 0xff80u, "-inf"},
    {0x7fc00000u, 0x7fc0u, "quiet NaN"},
    {0xffc00001u, 0xffc0u, "negative quiet NaN with payload"},
    {0x7f800001u, 0x7fc0u, "signalling NaN whose payload is in the dropped bits: truncation would make it inf"},
    {0x7fbfffffu, 0x7fffu, "NaN that would round into the sign bit"},
    {0x7f7fffffu, 0x7f80u, "largest float: beyond the largest bf16, rounds to inf"},
    {0x7f7f7fffu, 0x7f7fu, "just below the tie at the largest bf16: stays finite"},
    {0x00000001u, 0x0000u, "smallest denormal: rounds to 0"},
    {0x00008000u, 0x0000u, "denormal tie, even below: 0"},
    {0x00018000u, 0x0002u, "denormal tie, odd below: up"},
    {0x00008001u, 0x0001u, "denormal above the tie: smallest bf16 denormal, not flushed"},
    {0x007fffffu, 0x0080u, "largest denormal: rounds up to the smallest normal"},
    {0x80410000u, 0x8041u, "negative denormal, exact"},
};

TEST(MatmulBf16Kernel, RoundsToNearestEvenKeepingNanInfAndDenormals) {
  for (const Pattern& p : kPatterns)
    EXPECT_EQ(bf16_bits(std::bit_cast<float>(p.in)), p.out) << std::hex << p.in << ": " << p.what;
  // The vector loop the kernel copies with, at lengths around every vector width, agrees bit for bit.
  for (size_t n : {size_t{1}, size_t{7}, size_t{23}, size_t{64}, size_t{101}}) {
    std::vector<float> x(n);
    std::vector<uint16_t> want(n), got(n, 0xdeadu);
    for (size_t i = 0; i < n; ++i) {
      const Pattern& p = kPatterns[(i * 7) % std::size(kPatterns)];
      x[i] = std::bit_cast<float>(p.in);
      want[i] = p.out;
    }
    round_to_bf16_bits(x.data(), static_cast<int64_t>(n), got.data());
    EXPECT_EQ(got, want) << "n = " << n;
  }
}

TEST(MatmulBf16Kernel, ProductWithOneIsTheRoundedInputKeepingNanAndInf) {
  // C = A x [1]: each element of C is bf16(a) * 1, exact, so the whole path (copy, oneDNN, store) keeps the
  // rounding, NaN and inf. A is read with a stride (a gathered copy). Denormals: the copies keep them (test
  // above), but AVX512_BF16's dot-product instruction (VDPBF16PS) reads bf16 denormals as zero whatever MXCSR
  // says, so the native path gives a zero there; the emulated path multiplies them in float32 exactly.
  const int64_t rows = static_cast<int64_t>(std::size(kPatterns));
  std::vector<float> a(static_cast<size_t>(2 * rows), 0.0f);
  for (int64_t i = 0; i < rows; ++i) a[static_cast<size_t>(2 * i)] = std::bit_cast<float>(kPatterns[i].in);
  const float one = 1.0f;
  std::vector<float> c(static_cast<size_t>(rows), 0.0f);
  const MatmulOperand a_layout{{1, 1, rows, 1}, {0, 0, 2, 1}};
  matmul_bf16(a.data(), a_layout, &one, dense_operand(1, 1), c.data(), dense_operand(rows, 1), false);
  const std::string path = matmul_bf16_implementation(a_layout, dense_operand(1, 1), dense_operand(rows, 1), false);
  const bool native = path.rfind("onednn-bf16", 0) == 0;
  for (int64_t i = 0; i < rows; ++i) {
    const float want = bf16_to_float(kPatterns[i].out), got = c[static_cast<size_t>(i)];
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << kPatterns[i].what;
    } else if (std::fpclassify(want) == FP_SUBNORMAL && native) {
      EXPECT_EQ(got, 0.0f) << kPatterns[i].what << " via " << path;
    } else {
      EXPECT_EQ(got, want) << kPatterns[i].what << " via " << path;  // == : a sum starting at +0 turns -0 into +0
      EXPECT_EQ(std::signbit(got), std::signbit(want) && want != 0.0f) << kPatterns[i].what << " via " << path;
    }
  }
}

// --- contract, steady state, threads ---

TEST(MatmulBf16Kernel, ChecksLayoutsLikeMatmul) {
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  try {
    matmul_bf16(x.data(), dense_operand(2, 3), x.data(), dense_operand(4, 2), y.data(), dense_operand(2, 2), false);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("inner dimensions disagree"), std::string::npos) << e.what();
  }
  EXPECT_THROW(matmul_bf16(nullptr, dense_operand(2, 3), x.data(), dense_operand(3, 2), y.data(), dense_operand(2, 2),
                           false),
               std::invalid_argument);
  // K = 0: C = 0 (accumulate: unchanged) without reading A or B.
  std::fill(y.begin(), y.end(), 7.0f);
  matmul_bf16(nullptr, dense_operand(2, 0), nullptr, dense_operand(0, 2), y.data(), dense_operand(2, 2), false);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[4], 7.0f);
}

TEST(MatmulBf16Kernel, SteadyStateAllocatesNothing) {
  clear_matmul_bf16_cache();
  const int64_t m = 64, k = 96, n = 80;
  std::vector<float> a(static_cast<size_t>(m * k), 0.5f), b(static_cast<size_t>(k * n), 0.25f);
  std::vector<float> c(static_cast<size_t>(2 * m * n), 0.0f);
  // A dense call, a transposed-weight call, and a transposed C (through the dense C scratch where native).
  const auto calls = [&] {
    matmul_bf16(a.data(), dense_operand(m, k), b.data(), dense_operand(k, n), c.data(), dense_operand(m, n), false);
    matmul_bf16(a.data(), dense_operand(m, k), b.data(), transposed_view(dense_operand(n, k)), c.data(),
                dense_operand(m, n), true, 0.5f);
    matmul_bf16(a.data(), dense_operand(m, k), b.data(), dense_operand(k, n), c.data(),
                MatmulOperand{{1, 1, m, n}, {0, 0, 1, 2 * m}}, true);
  };
  const size_t first = testing::heap_allocation_count_outside_onednn();
  calls();
  EXPECT_GT(testing::heap_allocation_count_outside_onednn(), first);  // the cache entries and scratch buffers
  const size_t steady = testing::heap_allocation_count_outside_onednn();
  for (int i = 0; i < 10; ++i) calls();
  EXPECT_EQ(testing::heap_allocation_count_outside_onednn() - steady, 0u) << "operator new calls in 30 calls";
}

TEST(MatmulBf16Kernel, OneAndTwoThreadsGiveTheSameBits) {
  const int64_t m = 64, k = 3072, n = 96;
  Rng rng(7);
  std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  rng.fill_uniform(a, -1.0f, 1.0f);
  rng.fill_uniform(b, -1.0f, 1.0f);
  const auto product = [&](int threads, const MatmulOperand& b_layout) {
    const int previous = set_thread_count(threads);
    clear_matmul_bf16_cache();  // oneDNN fixes a primitive's thread split when it is created
    clear_matmul_cache();
    std::vector<float> c(static_cast<size_t>(m * n), 0.0f);
    matmul_bf16(a.data(), dense_operand(m, k), b.data(), b_layout, c.data(), dense_operand(m, n), false);
    set_thread_count(previous);
    return c;
  };
  for (const MatmulOperand& b_layout : {dense_operand(k, n), transposed_view(dense_operand(n, k))}) {
    const std::vector<float> one = product(1, b_layout), two = product(2, b_layout);
    for (size_t i = 0; i < one.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(one[i]), std::bit_cast<uint32_t>(two[i])) << "element " << i;
  }
}

// --- which path ---

TEST(MatmulBf16Kernel, SupportFollowsTheCpuAndSinklabMaxIsa) {
  const Bf16MatmulSupport support = bf16_matmul_support();
  const CpuDescription cpu = describe_cpu();
#if defined(__x86_64__)
  const bool cpu_bf16 = std::find(cpu.features.begin(), cpu.features.end(), "avx512bf16") != cpu.features.end();
  const bool below_bf16_level = kernel_isa_level() < IsaLevel::avx512;
#else
  const bool cpu_bf16 = false;  // oneDNN 2.6 has no AArch64 bf16 matmul, whatever the CPU
  const bool below_bf16_level = true;
#endif
  if (below_bf16_level || !cpu_bf16) {
    EXPECT_FALSE(support.native) << support.implementation;
    EXPECT_EQ(support.implementation.rfind("emulated:onednn", 0), 0u) << support.implementation;
  }
  if (support.native) {
    EXPECT_TRUE(support.implementation.find("bf16") != std::string::npos ||
                support.implementation.find("amx") != std::string::npos)
        << support.implementation;
  }
  const char* cap = std::getenv("SINKLAB_MAX_ISA");
  if (cpu_bf16 && (cap == nullptr || *cap == '\0')) {
    EXPECT_TRUE(support.native) << "this CPU has AVX512_BF16 and no SINKLAB_MAX_ISA caps oneDNN";
  }
}

TEST(MatmulBf16Kernel, EveryLayoutGetsAFastPath) {
  if (!bf16_matmul_support().native)
    GTEST_SKIP() << "no native bf16 matmul here: " << bf16_matmul_support().implementation;
  const int64_t m = 17, k = 33, n = 20;
  const MatmulOperand every_other_a{{1, 1, m, k}, {0, 0, 2 * k, 2}};
  const MatmulOperand transposed_c = transposed_view(dense_operand(n, m));
  for (const Problem& p : {Problem{dense_operand(m, k), dense_operand(k, n), dense_operand(m, n), true, 0.5f},
                           Problem{transposed_view(dense_operand(k, m)), transposed_view(dense_operand(n, k)),
                                   dense_operand(m, n)},
                           Problem{every_other_a, dense_operand(k, n), dense_operand(m, n)},
                           Problem{dense_operand(m, k), dense_operand(k, n), transposed_c, true}}) {
    const std::string path = matmul_bf16_implementation(p.a, p.b, p.c, p.accumulate, p.alpha);
    EXPECT_EQ(path.rfind("onednn-bf16", 0), 0u) << name(p);
    EXPECT_EQ(path.find("ref"), std::string::npos) << name(p);
  }
  // A transposed C is computed swapped (C^T = B^T A^T), not through the dense scratch; so is the gradient of a
  // GPT-2 attention weight stored [C, H*d] and viewed as [H, d, C] (C [1, 12, 64, 768], unit stride down d).
  EXPECT_EQ(matmul_bf16_implementation(dense_operand(m, k), dense_operand(k, n), transposed_c, true).rfind(
                "onednn-bf16-swapped:", 0),
            0u);
  const MatmulOperand head_grad{{1, 12, 64, 768}, {0, 64, 1, 768}};
  EXPECT_EQ(matmul_bf16_implementation(MatmulOperand{{1, 12, 64, 256}, {0, 16384, 1, 64}}, dense_operand(256, 768),
                                       head_grad, true)
                .rfind("onednn-bf16-swapped:", 0),
            0u);
}

}  // namespace
}  // namespace sinklab::kernels
