// The three products of one fused attention block (layers/fused_block_attention_kernels.h), hand-written
// kernels against libxsmm's JIT small GEMMs, on the block shapes the fused path sees (T keys <= 64, D
// the head width): scores S = q k^T, weighted values O += P V, transposed P^T dO (dV; dK = dS^T Q is the
// same product). libxsmm gets its operands as a real integration would: k transposed into [D, T] first
// (counted in its time), P^T by its transpose flag when it generates one, else by an explicit copy
// (also counted). It computes the full T x T products; the hand kernels only the causal part.
// 64 blocks of distinct memory per iteration (the block loop's working set stays in L2 as in a step).
// Counter: ns per block. The two sides are checked to agree before timing (the program aborts if not).
//   OMP_NUM_THREADS=1 build/bench/small_gemm_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <libxsmm.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/rng.h"
#include "layers/fused_block_attention_kernels.h"

namespace {

using namespace sinklab;

constexpr int kBlocks = 64;

enum class Product { scores, weighted_values, transposed };
enum class Impl { hand, libxsmm };

// Row-major C [M, N] = A [M, K] B [K, N] (beta 1 or 0) is column-major C^T = B^T A^T: libxsmm's m = N,
// n = M, its "a" is B and its "b" is A. transpose_a_rowmajor: A is given as its [K, M] row-major transpose.
libxsmm_smmfunction dispatch(int M, int N, int K, float beta, bool transpose_a_rowmajor) {
  const libxsmm_blasint m = N, n = M, k = K, lda = N, ldb = transpose_a_rowmajor ? M : K, ldc = N;
  const float alpha = 1.0f;
  const int flags = transpose_a_rowmajor ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  return libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, nullptr);
}

struct Blocks {
  int T, D;
  std::vector<float> a, b, w, out,
      scratch;  // a, b: [blocks, T, D]; w: causal [blocks, T, T]; out: [blocks, T, max(T, D)]
  Blocks(int T_, int D_) : T(T_), D(D_) {
    const size_t td = static_cast<size_t>(T) * D, tt = static_cast<size_t>(T) * T;
    a.resize(kBlocks * td), b.resize(kBlocks * td), w.resize(kBlocks * tt), out.resize(kBlocks * (tt + td));
    scratch.resize(static_cast<size_t>(D) * fused::kMaxSeqLen + tt);
    Rng rng(7);
    rng.fill_uniform(a, -1.0f, 1.0f);
    rng.fill_uniform(b, -1.0f, 1.0f);
    rng.fill_uniform(w, 0.0f, 1.0f);
    for (int blk = 0; blk < kBlocks; ++blk)
      for (int i = 0; i < T; ++i)
        for (int j = i + 1; j < T; ++j) w[blk * tt + i * T + j] = 0.0f;  // causal weights, as the kernels require
  }
};

struct Xsmm {
  libxsmm_smmfunction kernel = nullptr;
  bool explicit_transpose = false;  // P^T by a copy: the flag gave no kernel
};

Xsmm xsmm_for(Product p, int T, int D) {
  Xsmm x;
  switch (p) {
    case Product::scores: x.kernel = dispatch(T, T, D, 0.0f, false); break;          // S = q kT
    case Product::weighted_values: x.kernel = dispatch(T, D, T, 1.0f, false); break;  // O += P V
    case Product::transposed:
      x.kernel = dispatch(T, D, T, 1.0f, true);  // dV += P^T dO
      if (!x.kernel) {
        x.kernel = dispatch(T, D, T, 1.0f, false);
        x.explicit_transpose = true;
      }
      break;
  }
  if (!x.kernel) {
    std::fprintf(stderr, "small_gemm_bench: libxsmm generated no kernel for T %d, D %d\n", T, D);
    std::exit(1);
  }
  return x;
}

void transpose(const float* in, int rows, int cols, float* out) {  // in [rows, cols] -> out [cols, rows]
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

// One block of one product. out is zeroed by the caller where the product accumulates.
void run_block(Product p, Impl impl, const Xsmm& x, Blocks& s, int blk) {
  const int T = s.T, D = s.D;
  const size_t td = static_cast<size_t>(T) * D, tt = static_cast<size_t>(T) * T;
  const float *a = s.a.data() + blk * td, *b = s.b.data() + blk * td, *w = s.w.data() + blk * tt;
  float* out = s.out.data() + blk * (tt + td);
  float* scratch = s.scratch.data();
  if (impl == Impl::hand) {
    switch (p) {
      case Product::scores: fused::causal_row_dots(a, b, T, D, 1.0f, out, scratch); break;
      case Product::weighted_values: fused::accumulate_weights_times_rows(w, b, T, D, 1.0f, out); break;
      case Product::transposed: fused::accumulate_weights_transposed_times_rows(w, b, T, D, 1.0f, out); break;
    }
    return;
  }
  switch (p) {
    case Product::scores:
      transpose(b, T, D, scratch);  // kT [D, T]
      x.kernel(scratch, a, out);    // S [T, T] = q [T, D] kT [D, T]
      break;
    case Product::weighted_values: x.kernel(b, w, out); break;  // O [T, D] += P [T, T] V [T, D]
    case Product::transposed:
      if (x.explicit_transpose) {
        transpose(w, T, T, scratch);
        x.kernel(b, scratch, out);
      } else {
        x.kernel(b, w, out);
      }
      break;
  }
}

// Both implementations on block 0 from zero; the scores are compared on the causal part only.
void check_agreement(Product p, const Xsmm& x, int T, int D) {
  Blocks hand(T, D), xsmm(T, D);
  std::fill(hand.out.begin(), hand.out.end(), 0.0f);
  std::fill(xsmm.out.begin(), xsmm.out.end(), 0.0f);
  run_block(p, Impl::hand, x, hand, 0);
  run_block(p, Impl::libxsmm, x, xsmm, 0);
  const int rows = T, cols = p == Product::scores ? T : D;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      if (p == Product::scores && j > i) continue;
      const float h = hand.out[i * cols + j], l = xsmm.out[i * cols + j];
      if (std::fabs(h - l) > 1e-4f * (1.0f + std::fabs(h))) {
        std::fprintf(stderr, "small_gemm_bench: product %d at T %d D %d differs at [%d, %d]: hand %g, libxsmm %g\n",
                     static_cast<int>(p), T, D, i, j, h, l);
        std::exit(1);
      }
    }
}

void run(benchmark::State& state, Product p, Impl impl, int T, int D) {
  const Xsmm x = xsmm_for(p, T, D);
  check_agreement(p, x, T, D);
  Blocks s(T, D);
  std::fill(s.out.begin(), s.out.end(), 0.0f);
  for (auto _ : state) {
    for (int blk = 0; blk < kBlocks; ++blk) run_block(p, impl, x, s, blk);
    benchmark::ClobberMemory();
  }
  state.counters["ns/block"] = benchmark::Counter(static_cast<double>(kBlocks) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate |
                                                      benchmark::Counter::kInvert);
  if (impl == Impl::libxsmm && x.explicit_transpose) state.SetLabel("P^T copied: no kernel for the flag");
}

}  // namespace

int main(int argc, char** argv) {
  libxsmm_init();
  const std::pair<Product, const char*> products[] = {
      {Product::scores, "scores"}, {Product::weighted_values, "weighted_values"}, {Product::transposed, "transposed"}};
  for (const auto& [p, pname] : products)
    for (const auto& [T, D] : {std::pair{16, 16}, {32, 16}, {64, 16}, {64, 32}})
      for (const Impl impl : {Impl::hand, Impl::libxsmm}) {
        const std::string label = std::string("block/") + pname + "/" + (impl == Impl::hand ? "hand" : "libxsmm") +
                                  "/T" + std::to_string(T) + "_D" + std::to_string(D);
        benchmark::RegisterBenchmark(label.c_str(), [p = p, impl, T = T, D = D](benchmark::State& st) {
          run(st, p, impl, T, D);
        })->Unit(benchmark::kMicrosecond);
      }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  libxsmm_finalize();
  return 0;
}
