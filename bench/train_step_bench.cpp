// Training-step time of sinklab on the paper configs (and the medium config), one full step:
// batch generation + forward + loss + backward + Adam. The argument is the thread count (the run's
// `threads`). bench/vs_pytorch.py runs this next to the PyTorch twin and prints the ratios.
#include <benchmark/benchmark.h>

#include <string>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace {

sinklab::RunConfig load(const std::string& file, int threads) {
  const sinklab::ConfigVocabulary vocab{sinklab::normalizer_registry().names(), sinklab::task_names()};
  sinklab::RunConfig c =
      sinklab::load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/" + file,
                               {"threads=" + std::to_string(threads), "train.stop_max_abs_error=0"}, vocab);
  return c;
}

// Matmul FLOPs of one training step (forward x 3: backward costs two products per forward one).
double step_flops(const sinklab::RunConfig& c) {
  const double B = c.train.batch_size, T = c.task.seq_len, d = c.model.d_model, H = c.model.heads;
  const double D = sinklab::resolved_head_dim(c.model), hidden = c.model.mlp_hidden,
               io = sinklab::task_shape_of(c.task, c.model.residual).input_dim;
  double forward = c.model.layers * (4 * 2 * B * T * d * H * D      // Q, K, V, O projections
                                     + 2 * 2 * B * H * T * T * D    // scores and weights x V
                                     + 2 * 2 * B * T * d * hidden);  // MLP
  if (c.model.input_projection) forward += 2 * B * T * io * d;
  if (c.model.output_head) forward += 2 * B * T * d * io;
  return 3 * forward;
}

void train_step(benchmark::State& state, const std::string& file) {
  const sinklab::RunConfig config = load(file, static_cast<int>(state.range(0)));
  sinklab::Trainer trainer(config);
  int64_t step = 0;
  for (int i = 0; i < 5; ++i) trainer.train_step(step++, false);  // warm-up: arena, tape, primitive cache
  for (auto _ : state) benchmark::DoNotOptimize(trainer.train_step(step++, false));
  // Achieved matmul throughput of the whole step, to compare with the matmul_bench peak.
  state.counters["GFLOP/s"] =
      benchmark::Counter(step_flops(config) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// A logged step (every train.log_every-th): the same with the sink-statistics observer registered,
// so attention also computes its per-row facts (virtual mass, value norms) for the statistics.
void train_step_logged(benchmark::State& state, const std::string& file) {
  const sinklab::RunConfig config = load(file, static_cast<int>(state.range(0)));
  sinklab::Trainer trainer(config);
  int64_t step = 0;
  for (int i = 0; i < 5; ++i) trainer.train_step(step++, true);
  for (auto _ : state) benchmark::DoNotOptimize(trainer.train_step(step++, true));
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
BENCHMARK_CAPTURE(train_step_logged, 1x1_softmax, std::string("configs/paper/1x1_softmax.yaml"))
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step_logged, 2x2_softmax, std::string("configs/paper/2x2_softmax.yaml"))
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(train_step, medium, std::string("configs/bench/medium.yaml"))
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// The L = 1024 language model (needs scripts/get_corpus.sh; run from the repository root, its corpus
// path is relative). Unlogged steps: attention takes the tiled path (layers/tiled_attention.h).
BENCHMARK_CAPTURE(train_step, kjv_char, std::string("configs/normlimits/kjv_char.yaml"))
    ->Arg(1)
    ->Arg(2)
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
