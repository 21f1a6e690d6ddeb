// The attention normalizers' whole-block kernels against the row-by-row default, per registered
// normalizer: 512 causal blocks of 16 x 16 (the 4x4 paper model's [H, B] = [4, 128] per layer) and
// 64 blocks of 256 x 256 (the medium model). Forward writes probs; backward adds into dscores.
//   build/bench/normalizer_bench
#include "layers/normalizers/normalizer_registry.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace {

enum class Pass { forward, backward };
enum class Path { block, rows };

void run(benchmark::State& state, const std::string& name, Pass pass, Path path, int T, int blocks) {
  sinklab::NormalizerConfig config;
  config.name = name;
  const std::unique_ptr<sinklab::Normalizer> norm = sinklab::normalizer_registry().create(config);
  const size_t n = static_cast<size_t>(blocks) * T * T;
  std::vector<float> scores(n), probs(n), dprobs(n), dscores(n, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    scores[i] = static_cast<float>((i * 7919) % 200) / 100.0f - 1.0f;
    dprobs[i] = static_cast<float>((i * 104729) % 200) / 100.0f - 1.0f;
  }
  std::vector<float> scratch(static_cast<size_t>(std::max(norm->scratch_per_row(T), 1)));
  const int P = norm->params_per_head();
  std::vector<float> params(static_cast<size_t>(std::max(P, 1)), 0.5f), dparams(params.size(), 0.0f);
  norm->forward_block(scores.data(), probs.data(), T, 0, params.data(), scratch.data());
  for (auto _ : state) {
    for (int b = 0; b < blocks; ++b) {
      const size_t at = static_cast<size_t>(b) * T * T;
      const float* s = scores.data() + at;
      if (pass == Pass::forward) {
        if (path == Path::block) norm->forward_block(s, probs.data() + at, T, 0, params.data(), scratch.data());
        else norm->Normalizer::forward_block(s, probs.data() + at, T, 0, params.data(), scratch.data());
      } else {
        if (path == Path::block)
          norm->backward_block(s, probs.data() + at, dprobs.data() + at, dscores.data() + at, T, 0, params.data(),
                               dparams.data(), scratch.data());
        else
          norm->Normalizer::backward_block(s, probs.data() + at, dprobs.data() + at, dscores.data() + at, T, 0,
                                           params.data(), dparams.data(), scratch.data());
      }
    }
    benchmark::ClobberMemory();
  }
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(blocks) * T, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string& name : sinklab::normalizer_registry().names())
    for (auto [T, blocks] : {std::pair{16, 512}, std::pair{256, 64}})
      for (Pass pass : {Pass::forward, Pass::backward})
        for (Path path : {Path::block, Path::rows}) {
          const std::string label = "normalizer/" + name + "/T" + std::to_string(T) + "/" +
                                    (pass == Pass::forward ? "forward" : "backward") + "/" +
                                    (path == Path::block ? "block" : "rows");
          benchmark::RegisterBenchmark(label.c_str(), run, name, pass, path, T, blocks)->Unit(benchmark::kMicrosecond);
        }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
