// The training loop: bit-identical repeat runs, bit-identical resume from a checkpoint, no heap
// allocation in steady-state steps, loss going down, logged steps on long rows costing no [T, T]
// gradients, corrupt checkpoints rejected.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "config_loading/config_loader.h"
#include "core/kernels/matmul.h"
#include "core/kernels/matmul_bf16.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "models/model_loader.h"
#include "run_files/checkpoint.h"
#include "train/trainer.h"

// Counts the C++ heap allocations of this test binary: sinklab's own, and separately those oneDNN 2.6
// makes inside its execute call (its argument map; see kernels::inside_onednn_execute()).
namespace {
size_t g_allocations = 0;
size_t g_onednn_allocations = 0;
void count_allocation() {
  if (sinklab::kernels::inside_onednn_execute() || sinklab::kernels::inside_bf16_onednn_execute())
    ++g_onednn_allocations;
  else
    ++g_allocations;
}
}  // namespace
// Every plain form, the nothrow one too (std::stable_sort's buffer): a form left to the runtime (or to
// AddressSanitizer's own) would be freed here by a different allocator.
void* operator new(size_t n) {
  count_allocation();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  count_allocation();
  return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig small_config(const std::string& normalizer, int layers) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return parse_run_config(
      "model: {layers: " + std::to_string(layers) +
          ", heads: 2, residual: true, attention: {normalizer: " + normalizer +
          "}}\noptimizer: {lr: 3.0e-3}\ntrain: {batch_size: 32, max_steps: 60, log_every: 10, eval_every: 20}\n"
          "task: {eval_samples: 64}\nanalysis: {eval_attention_samples: 64}\n",
      "test.yaml", {}, vocab);
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("sinklab_trainer_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<float> params_after(const RunConfig& c, const TrainOptions& o) {
  Trainer t(c);
  t.run(o);
  return {t.parameters().values().begin(), t.parameters().values().end()};
}

// A logged step reads the attention statistics of its batch; it must not train differently. Observed,
// attention is materialized; unobserved it is fused or tiled, which agrees only to rounding (at the avx
// kernel level not bit for bit), so a logged step trained observed made the weights depend on log_every.
// Also run at every kernel level below the machine's (tests/CMakeLists.txt, isa_*.paper_regression).
TEST(Trainer, HowOftenARunLogsNeverChangesItsWeights) {
  TrainOptions o;
  o.quiet = true;
  for (const char* normalizer : {"softmax", "relu"}) {
    RunConfig every_step = small_config(normalizer, 2), never = small_config(normalizer, 2);
    every_step.train.max_steps = never.train.max_steps = 30;
    every_step.train.log_every = 1;
    never.train.log_every = 1000;
    EXPECT_EQ(params_after(every_step, o), params_after(never, o)) << normalizer;
  }
}

TEST(Trainer, SameSeedGivesBitIdenticalParameters) {
  TrainOptions o;
  o.quiet = true;
  const auto a = params_after(small_config("softmax", 2), o);
  const auto b = params_after(small_config("softmax", 2), o);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  RunConfig other = small_config("softmax", 2);
  other.seed = 1;
  EXPECT_NE(a, params_after(other, o));
}

TEST(Trainer, ResumedRunContinuesBitIdentically) {
  for (const char* normalizer : {"softmax", "relu"}) {
    const RunConfig c = small_config(normalizer, 2);
    TrainOptions straight;
    straight.quiet = true;
    const auto reference = params_after(c, straight);

    const fs::path dir = temp_dir(normalizer);
    TrainOptions first = straight;
    first.run_dir = dir;
    first.stop_at_step = 25;
    { Trainer t(c); t.run(first); }
    EXPECT_FALSE(fs::exists(dir / "summary.json")) << "an interrupted run must not look finished";
    TrainOptions second = straight;
    second.run_dir = dir;
    second.resume_from = dir / "checkpoint.bin";
    const auto resumed = params_after(c, second);
    ASSERT_EQ(reference.size(), resumed.size());
    EXPECT_EQ(0, std::memcmp(reference.data(), resumed.data(), reference.size() * sizeof(float))) << normalizer;
    EXPECT_TRUE(fs::exists(dir / "summary.json"));
    fs::remove_all(dir);
  }
}

TEST(Trainer, SteadyStateStepsAllocateNothing) {
  for (const int layers : {1, 2, -2}) {  // -2: two layers with bf16 products (train.precision)
    RunConfig c = small_config("softmax", std::abs(layers));
    if (layers < 0) c.train.precision = MatmulPrecision::bf16;
    Trainer t(c);
    for (int step = 0; step < 3; ++step) t.train_step(step, false);  // warm-up: arena, tape, primitive cache
    const size_t before = g_allocations, onednn_before = g_onednn_allocations;
    for (int step = 3; step < 23; ++step) t.train_step(step, false);
    EXPECT_EQ(g_allocations - before, 0u) << "sinklab heap allocations in 20 steady-state steps, layers " << layers;
    // Reported, not asserted: oneDNN's own per-execute allocations, which no caller can avoid.
    std::printf("layers %d: oneDNN execute made %zu allocations in 20 steps\n", layers,
                g_onednn_allocations - onednn_before);
  }
}

TEST(Trainer, LossGoesDown) {
  RunConfig c = small_config("softmax", 1);
  c.train.max_steps = 200;
  c.train.stop_max_abs_error = 0;
  Trainer t(c);
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    const double loss = t.train_step(step, false);
    if (step == 0) first = loss;
    last = loss;
  }
  EXPECT_LT(last, 0.5 * first);
}

TEST(Trainer, LoggedStepsOnLongRowsHoldNoQuadraticGradients) {
  // T = 512, tiled when unobserved: a logged step reads its statistics from a forward-only pass, one
  // input at a time, so it needs about the memory of an unlogged step. Observed inside the training
  // pass it would hold [H, B, T, T] scores, weights and both gradients per layer: 16 MB of each here,
  // several times the unlogged step's whole graph.
  const ConfigVocabulary vocab = registered_vocabulary();
  const RunConfig c = parse_run_config(
      "model: {layers: 2, heads: 2, residual: true, attention: {normalizer: softmax}}\n"
      "task: {seq_len: 512, eval_samples: 2}\nanalysis: {eval_attention_samples: 2}\n"
      "train: {batch_size: 8, max_steps: 2, log_every: 1}\n",
      "test.yaml", {}, vocab);
  Trainer t(c);
  ASSERT_TRUE(t.model().tiles_attention(512));
  t.train_step(0, false);
  const size_t unlogged = t.graph().arena().high_water();
  t.train_step(1, true);
  const size_t logged = t.graph().arena().high_water();
  const size_t one_tt_array = size_t{2} * 8 * 512 * 512;  // [H, B, T, T] floats
  EXPECT_LT(logged, unlogged + one_tt_array) << "unlogged " << unlogged << " floats, logged " << logged;
}

// Evaluations (steps 0, 20, 40) are rarer than progress lines (every 10 steps): each line carries the
// last one, so a log shows how the run is doing on the fixed set without the metrics file.
TEST(Trainer, ProgressLinesCarryTheLastEvaluation) {
  Trainer trainer(small_config("softmax", 1));
  TrainOptions options;
  ::testing::internal::CaptureStderr();
  trainer.run(options);
  const std::string progress = ::testing::internal::GetCapturedStderr();
  const auto line_of = [&](const std::string& start) {
    const size_t at = progress.find(start);
    return at == std::string::npos ? std::string() : progress.substr(at, progress.find('\n', at) - at);
  };
  EXPECT_NE(line_of("step 10/60 ").find("| eval@0 loss "), std::string::npos) << progress;
  EXPECT_NE(line_of("step 30/60 ").find("| eval@20 loss "), std::string::npos) << progress;
  EXPECT_NE(line_of("step 50/60 ").find("| eval@40 loss "), std::string::npos) << progress;
}

// With a line every step each speed window is one step: only the first (the warm-up) goes unmeasured.
TEST(Trainer, LoggingEveryStepStillMeasuresTheSpeed) {
  RunConfig config = small_config("softmax", 1);
  config.train.max_steps = 4;
  config.train.log_every = 1;
  Trainer trainer(config);
  ::testing::internal::CaptureStderr();
  trainer.run(TrainOptions{});
  const std::string progress = ::testing::internal::GetCapturedStderr();
  const size_t at = progress.find("step 3/4 ");
  ASSERT_NE(at, std::string::npos) << progress;
  const std::string last = progress.substr(at, progress.find('\n', at) - at);
  EXPECT_EQ(last.find("-- steps/s"), std::string::npos) << last;
  EXPECT_EQ(last.find(" 0 steps/s"), std::string::npos) << last;
  EXPECT_EQ(last.find("ETA --"), std::string::npos) << last;
}

TEST(Checkpoint, CorruptOrForeignFilesAreRejected) {
  const RunConfig c = small_config("softmax", 1);
  const fs::path dir = temp_dir("ckpt");
  TrainOptions o;
  o.quiet = true;
  o.run_dir = dir;
  o.stop_at_step = 5;
  { Trainer t(c); t.run(o); }
  const fs::path ckpt = dir / "checkpoint.bin";
  Trainer fresh(c);
  auto expect_error = [&](const fs::path& path, const CheckpointHashes& hash, const std::string& fragment) {
    try {
      load_checkpoint(path, hash, fresh.parameters());
      ADD_FAILURE() << "expected an error mentioning " << fragment;
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const CheckpointHashes hash = build_model(c)->checkpoint_hashes();
  EXPECT_NO_THROW(load_checkpoint(ckpt, hash, fresh.parameters()));
  expect_error(ckpt, {hash.model, hash.config + 1}, "different config");
  expect_error(dir / "missing.bin", hash, "cannot open");
  std::string bytes;
  {
    std::ifstream in(ckpt, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir / name, std::ios::binary) << content;
    return dir / name;
  };
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x5a;
  expect_error(write("flipped.bin", flipped), hash, "checksum");
  expect_error(write("short.bin", bytes.substr(0, bytes.size() - 7)), hash, "truncated");
  expect_error(write("magic.bin", "NOTACKPT" + bytes.substr(8)), hash, "bad magic");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
