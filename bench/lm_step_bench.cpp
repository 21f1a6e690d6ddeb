// Training-step time of sinklab's language models: configs/normlimits/kjv_char.yaml (char windows of
// the KJV, L 1024, batch 4) and configs/bench/gpt2_small.yaml (GPT-2-small's body on word-level KJV,
// 94M parameters, T 64, batch 4): one full step = batch generation + forward + cross-entropy + backward +
// gradient norm (clipped where the config clips) + AdamW.
//   lm_step/kjv_char/<threads>                 the config as it is, at 1 or 2 threads
//   lm_step/gpt2_small/<threads>               the config as it is, at 1 or 2 threads
//   lm_step_bf16/{kjv_char,gpt2_small}/<threads>  the same with train.precision: bf16 (label: the bf16 kernel)
//   lm_step_t_sweep/kjv_char/<T>/<threads>     T = 64 .. 2048 at 4096 tokens per step (batch 4096 / T);
//                                              the learned positions follow task.seq_len
// Each times 3 steps after 2 warm-up steps (names end in /iterations:3/real_time).
// Counters: GFLOP/s (bench/step_flops.h: matmul FLOPs, attention over full T x T blocks) and arena_MB,
// the graph arena's high-water mark (activations, saved tensors and their gradients of one step).
// Needs data/corpora/kjv.txt (scripts/get_corpus.sh); without it every benchmark is skipped with that
// message. bench/vs_pytorch.py --configs kjv_char,gpt2_small / --t-sweep runs these next to the PyTorch
// twin.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench/step_flops.h"
#include "config_loading/config_loader.h"
#include "core/kernels/matmul_bf16.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace {

constexpr int kTokensPerStep = 4096;  // the T sweep's fixed batch size in tokens
const std::string kCorpus = std::string(SINKLAB_SOURCE_DIR) + "/data/corpora/kjv.txt";

const std::string kKjvChar = "configs/normlimits/kjv_char.yaml";
const std::string kGpt2Small = "configs/bench/gpt2_small.yaml";

sinklab::RunConfig load(const std::string& config, std::vector<std::string> overrides, int threads) {
  const sinklab::ConfigVocabulary vocab{sinklab::normalizer_registry().names(), sinklab::task_names()};
  overrides.push_back("threads=" + std::to_string(threads));
  overrides.push_back("task.corpus=" + kCorpus);  // the config's path is relative to the repository root
  return sinklab::load_run_config(std::string(SINKLAB_SOURCE_DIR) + "/" + config, overrides, vocab);
}

bool corpus_missing(benchmark::State& state) {
  if (std::filesystem::exists(kCorpus)) return false;
  state.SkipWithError((kCorpus + " is missing: run scripts/get_corpus.sh to write it").c_str());
  return true;
}

void time_steps(benchmark::State& state, const sinklab::RunConfig& config) {
  sinklab::Trainer trainer(config);
  int64_t step = 0;
  // Warm-up: the first step sizes the arena and builds the matmul primitives; the second runs as every
  // later one does. Each costs a second or more (kjv_char at L 1024, gpt2_small's 94M parameters), so
  // two, not the five of train_step_bench.
  for (int i = 0; i < 2; ++i) trainer.train_step(step++, false);
  for (auto _ : state) benchmark::DoNotOptimize(trainer.train_step(step++, false));
  state.counters["GFLOP/s"] = benchmark::Counter(sinklab::bench::training_step_flops(config) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  state.counters["arena_MB"] = static_cast<double>(trainer.graph().arena().high_water() * sizeof(float)) / 1e6;
  state.counters["tokens"] = static_cast<double>(config.train.batch_size) * config.task.seq_len;
}

// The config unchanged, or with bf16 products (train.precision: bf16, labelled with the bf16 kernel); the
// argument is the thread count.
void lm_step(benchmark::State& state, const std::string& config, bool bf16) {
  if (corpus_missing(state)) return;
  time_steps(state, load(config, bf16 ? std::vector<std::string>{"train.precision=bf16"} : std::vector<std::string>{},
                         static_cast<int>(state.range(0))));
  if (bf16) state.SetLabel(sinklab::kernels::bf16_matmul_support().implementation);
}

// Arguments: T, threads. Batch = 4096 / T windows, so every T trains on the same number of tokens.
void lm_step_t_sweep(benchmark::State& state) {
  if (corpus_missing(state)) return;
  const auto T = static_cast<int>(state.range(0));
  time_steps(
      state,
      load(kKjvChar, {"task.seq_len=" + std::to_string(T), "train.batch_size=" + std::to_string(kTokensPerStep / T)},
           static_cast<int>(state.range(1))));
}

}  // namespace

// Three timed steps per run, fixed: a step takes seconds, and a run that Google Benchmark repeats to
// reach --benchmark_min_time would rebuild the trainer and redo the warm-up each time.
BENCHMARK_CAPTURE(lm_step, kjv_char, kKjvChar, false)
    ->Name("lm_step/kjv_char")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(lm_step, gpt2_small, kGpt2Small, false)
    ->Name("lm_step/gpt2_small")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(lm_step, kjv_char_bf16, kKjvChar, true)
    ->Name("lm_step_bf16/kjv_char")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(lm_step, gpt2_small_bf16, kGpt2Small, true)
    ->Name("lm_step_bf16/gpt2_small")
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(lm_step_t_sweep)
    ->Name("lm_step_t_sweep/kjv_char")
    ->ArgsProduct({{64, 128, 256, 512, 1024, 2048}, {1, 2}})
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
