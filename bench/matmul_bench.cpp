// GFLOP/s of kernels::matmul through its primitive cache (the first call, outside the timed loop,
// builds the primitive). Run once with OMP_NUM_THREADS=1 and once with 2; see docs/performance.md.
// Shapes are M x K x N: A [M, K] x B [K, N] -> C [M, N].
#include "core/kernels/matmul.h"
#include "core/rng.h"

#include <benchmark/benchmark.h>

#include <string>
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
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
