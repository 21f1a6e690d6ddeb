// Training-step time of sinklab on the paper configs (and the medium config), one full step:
// batch generation + forward + loss + backward + Adam. Compare threads with OMP_NUM_THREADS-free
// `--benchmark_filter` runs: the thread count is a benchmark argument here.
#include <benchmark/benchmark.h>

#include <string>

#include "configs/config_loader.h"
#include "data/task.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace {

sinklab::RunConfig load(const std::string& file, int threads) {
  const sinklab::ConfigVocabulary vocab{sinklab::normalizer_registry().names(), sinklab::task_names()};
  sinklab::RunConfig c = sinklab::load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/" + file,
                                                  {"threads=" + std::to_string(threads), "train.stop_max_abs_error=0"}, vocab);
  return c;
}

void train_step(benchmark::State& state, const std::string& file) {
  sinklab::Trainer trainer(load(file, static_cast<int>(state.range(0))));
  int64_t step = 0;
  for (int i = 0; i < 20; ++i) trainer.train_step(step++, false);  // warm-up: arena, tape, primitive cache
  for (auto _ : state) benchmark::DoNotOptimize(trainer.train_step(step++, false));
  state.counters["ms_per_step"] = benchmark::Counter(static_cast<double>(state.iterations()) * 1e-3,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

#define PAPER_BENCH(name)                                                                                  \
  BENCHMARK_CAPTURE(train_step, name, std::string("configs/paper/" #name ".yaml"))->Arg(1)->Arg(2)        \
      ->Unit(benchmark::kMicrosecond)->UseRealTime()
PAPER_BENCH(1x1_softmax);
PAPER_BENCH(1x1_relu);
PAPER_BENCH(2x2_softmax);
PAPER_BENCH(2x2_relu);
PAPER_BENCH(4x4_softmax);
PAPER_BENCH(4x4_relu);

BENCHMARK_MAIN();
