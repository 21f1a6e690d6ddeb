// Causal softmax attention forward + backward, materialized (scores -> attention_weights -> x V, the
// path below MultiHeadAttention::kTiledMinSeqLen) against tiled (layers/tiled_attention.h), over a T
// sweep at a fixed 8192 tokens per batch with the kjv_char heads (8 of width 16): B = 8192 / T.
// Counters: ns per token (real time; oneDNN and OpenMP threads included) and the graph arena's bytes.
//   OMP_NUM_THREADS=2 build/bench/attention_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/ops/matmul_op.h"
#include "core/rng.h"
#include "layers/attention_weights.h"
#include "layers/normalizers/softmax_normalizer.h"
#include "layers/tiled_attention.h"

namespace {

using namespace sinklab;

constexpr int64_t kTokens = 8192, kHeads = 8, kHeadDim = 16;

enum class Path { materialized, tiled };

void run(benchmark::State& state, Path path, int64_t T) {
  const int64_t B = kTokens / T;
  const Shape shape{kHeads, B, T, kHeadDim};
  const auto n = static_cast<size_t>(shape.numel());
  std::vector<float> data(3 * n), grads(3 * n), seed(n);
  Rng rng(1);
  rng.fill_uniform(data, -1.0f, 1.0f);
  rng.fill_uniform(seed, -1.0f, 1.0f);
  const Tensor q(data.data(), grads.data(), shape), k(data.data() + n, grads.data() + n, shape),
      v(data.data() + 2 * n, grads.data() + 2 * n, shape);
  const SoftmaxNormalizer softmax;
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  Graph g;
  auto step = [&] {
    g.reset();
    std::fill(grads.begin(), grads.end(), 0.0f);
    Tensor o;
    if (path == Path::tiled) {
      o = tiled_attention(g, q, k, v, scale, *softmax.tiled_form());
    } else {
      const Tensor weights = attention_weights(g, matmul(g, q, k.transpose(-2, -1), scale), softmax, Tensor());
      o = matmul(g, weights, v);
    }
    g.backward(o, seed);
    return g.arena().used();
  };
  step();  // warm-up: the arena grows (spills), oneDNN builds its primitives
  size_t arena_floats = step();  // the rewound arena is one block now: its pages are touched here, not timed
  for (auto _ : state) {
    arena_floats = step();
    benchmark::ClobberMemory();
  }
  state.counters["ns/token"] = benchmark::Counter(static_cast<double>(kTokens) * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate |
                                                      benchmark::Counter::kInvert);
  state.counters["arena_MB"] = static_cast<double>(arena_floats) * sizeof(float) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  for (const int64_t T : {64, 128, 256, 512, 1024, 2048})
    for (const Path path : {Path::materialized, Path::tiled}) {
      const std::string label = std::string("attention/") + (path == Path::tiled ? "tiled" : "materialized") + "/T" +
                                std::to_string(T);
      benchmark::RegisterBenchmark(label.c_str(), [path, T](benchmark::State& s) { run(s, path, T); })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
