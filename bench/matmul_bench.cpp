// GFLOP/s of kernels::matmul through its primitive cache (the first call, outside the timed loop,
// builds the primitive). Run once with OMP_NUM_THREADS=1 and once with 2; see docs/performance.md.
// Shapes are M x K x N: A [M, K] x B [K, N] -> C [M, N].
#include "core/kernels/matmul.h"
#include "core/kernels/matmul_bf16.h"
#include "core/rng.h"

#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#ifdef SINKLAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace {

using sinklab::kernels::dense_operand;
using sinklab::kernels::MatmulOperand;

int64_t span(const MatmulOperand& op) {
  int64_t last = 0;
  for (size_t i = 0; i < 4; ++i) last += (op.dims[i] - 1) * op.strides[i];
  return last + 1;
}

// `sets` > 1 rotates over that many independent operand sets, so each call finds its data out of
// cache, as in a training step where the previous op wrote it (sets = 1: warm cache).
void bench_matmul(benchmark::State& state, MatmulOperand a, MatmulOperand b, MatmulOperand c, bool accumulate,
                  int sets) {
  sinklab::Rng rng(1);
  std::vector<std::vector<float>> av(static_cast<size_t>(sets)), bv(av.size()), cv(av.size());
  for (int s = 0; s < sets; ++s) {
    av[s].resize(static_cast<size_t>(span(a)));
    bv[s].resize(static_cast<size_t>(span(b)));
    cv[s].resize(static_cast<size_t>(span(c)));
    rng.fill_uniform(av[s], -1.0f, 1.0f);
    rng.fill_uniform(bv[s], -1.0f, 1.0f);
    sinklab::kernels::matmul(av[s].data(), a, bv[s].data(), b, cv[s].data(), c, accumulate);  // cache entry
  }
  int s = 0;
  for (auto _ : state) {
    sinklab::kernels::matmul(av[s].data(), a, bv[s].data(), b, cv[s].data(), c, accumulate);
    benchmark::ClobberMemory();
    s = s + 1 == sets ? 0 : s + 1;
  }
  const double flops = 2.0 * static_cast<double>(c.dims[0] * c.dims[1] * c.dims[2] * c.dims[3] * a.dims[3]);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  int threads = 1;
#ifdef SINKLAB_HAVE_OPENMP
  threads = omp_get_max_threads();
#endif
  state.SetLabel(sinklab::kernels::matmul_implementation(a, b, c, accumulate) + " omp=" + std::to_string(threads));
}

void add(const std::string& name, const MatmulOperand& a, const MatmulOperand& b, const MatmulOperand& c,
         bool accumulate = false, int sets = 1) {
  // Real time: oneDNN's worker threads do not show up in the main thread's CPU time.
  benchmark::RegisterBenchmark(name.c_str(), bench_matmul, a, b, c, accumulate, sets)->UseRealTime();
}

// --- bf16 against float32 at GPT-2-small's shapes (kernels::matmul_bf16; docs/performance.md, "bf16 matmul") ---
// B 4 x T 64 = 256 rows, d = 768. Weights are stored [out, in] (layers/linear.cpp), so the forward pass reads
// them transposed; backward: dX = dY x W (dense x dense), dW += dY^T x X (transposed A, accumulate). The bf16
// times include rounding both inputs into the kernel's scratch: that is what a training step pays.
void bench_precision(benchmark::State& state, MatmulOperand a, MatmulOperand b, MatmulOperand c, bool accumulate,
                     bool bf16) {
  sinklab::Rng rng(1);
  std::vector<float> av(static_cast<size_t>(span(a))), bv(static_cast<size_t>(span(b)));
  std::vector<float> cv(static_cast<size_t>(span(c)));
  rng.fill_uniform(av, -1.0f, 1.0f);
  rng.fill_uniform(bv, -1.0f, 1.0f);
  const auto call = bf16 ? sinklab::kernels::matmul_bf16 : sinklab::kernels::matmul;
  call(av.data(), a, bv.data(), b, cv.data(), c, accumulate, 1.0f);  // cache entry and scratch
  for (auto _ : state) {
    call(av.data(), a, bv.data(), b, cv.data(), c, accumulate, 1.0f);
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * static_cast<double>(c.dims[0] * c.dims[1] * c.dims[2] * c.dims[3] * a.dims[3]);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  int threads = 1;
#ifdef SINKLAB_HAVE_OPENMP
  threads = omp_get_max_threads();
#endif
  state.SetLabel((bf16 ? sinklab::kernels::matmul_bf16_implementation(a, b, c, accumulate)
                       : sinklab::kernels::matmul_implementation(a, b, c, accumulate)) +
                 " omp=" + std::to_string(threads));
}

void add_gpt2_precision_cases() {
  using sinklab::kernels::transposed_view;
  const int64_t rows = 256;
  const std::pair<int64_t, int64_t> layers[] = {{768, 768}, {768, 2304}, {768, 3072}, {3072, 768}};  // (in, out)
  for (const auto& [in, out] : layers) {
    const std::string shape = std::to_string(rows) + "x" + std::to_string(in) + "x" + std::to_string(out);
    struct Case {
      std::string pass;
      MatmulOperand a, b, c;
      bool accumulate;
    };
    const Case cases[] = {
        {"forward", dense_operand(rows, in), transposed_view(dense_operand(out, in)), dense_operand(rows, out), false},
        {"dx", dense_operand(rows, out), dense_operand(out, in), dense_operand(rows, in), false},
        {"dw", transposed_view(dense_operand(rows, out)), dense_operand(rows, in), dense_operand(out, in), true},
    };
    for (const Case& c : cases)
      for (bool bf16 : {false, true})
        benchmark::RegisterBenchmark(("gpt2/" + shape + "/" + c.pass + (bf16 ? "/bf16" : "/f32")).c_str(),
                                     bench_precision, c.a, c.b, c.c, c.accumulate, bf16)
            ->UseRealTime();
  }
}
// --- end of the bf16 block ---

}  // namespace

int main(int argc, char** argv) {
  add("matmul/16x16x16", dense_operand(16, 16), dense_operand(16, 16), dense_operand(16, 16));
  add("matmul/512x(16x16x16)", dense_operand(1, 512, 16, 16), dense_operand(1, 512, 16, 16),
      dense_operand(1, 512, 16, 16));
  add("matmul/256x256x256", dense_operand(256, 256), dense_operand(256, 256), dense_operand(256, 256));
  add("matmul/512x512x512", dense_operand(512, 512), dense_operand(512, 512), dense_operand(512, 512));
  add("matmul/2048x256x768", dense_operand(2048, 256), dense_operand(256, 768), dense_operand(2048, 768));
  // Layouts off the main path: a transposed output (swapped oneDNN call) and every other output
  // column (the loop kernel).
  add("matmul/256x256x256_c_transposed", dense_operand(256, 256), dense_operand(256, 256),
      sinklab::kernels::transposed_view(dense_operand(256, 256)));
  add("matmul/256x256x256_c_stride2", dense_operand(256, 256), dense_operand(256, 256),
      MatmulOperand{{1, 1, 256, 256}, {0, 0, 512, 2}});
  // The 4x4 paper model's attention products (B 128, H 4, T 16, D 16): heads read as strided views of a
  // [B, T, H*D] projection ("strided") against dense per-head blocks ("dense", what attention uses), with
  // accumulation into the destination for the gradients; each out of cache (64 rotating operand sets,
  // ~100 MB), as in a training step.
  {
    const int64_t B = 128, H = 4, T = 16, D = 16;
    const int sets = 64;
    const MatmulOperand heads{{B, H, T, D}, {T * H * D, D, H * D, 1}};  // [B, T, H*D] viewed [B, H, T, D]
    const MatmulOperand dense_heads = dense_operand(B, H, T, D);
    const MatmulOperand probs = dense_operand(B, H, T, T);
    using sinklab::kernels::transposed_view;
    add("attention/scores_strided", heads, transposed_view(heads), probs, false, sets);
    add("attention/scores_dense", dense_heads, transposed_view(dense_heads), probs, false, sets);
    add("attention/pv_strided_out", probs, dense_heads, heads, false, sets);
    add("attention/pv_dense", probs, dense_heads, dense_heads, false, sets);
    add("attention/dv_strided", transposed_view(probs), dense_heads, heads, true, sets);
    add("attention/dv_dense", transposed_view(probs), dense_heads, dense_heads, true, sets);
    add("attention/dq_strided", probs, heads, heads, true, sets);
    add("attention/dq_dense", probs, dense_heads, dense_heads, true, sets);
  }
  add_gpt2_precision_cases();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
