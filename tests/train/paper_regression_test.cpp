// Pins the numbers of short runs of the paper configs (1x1 and 2x2, softmax and relu, one thread), so
// that a change of any bit of training, evaluation or the sink statistics fails here.
// Bit-identical results are a promise for the same build, config, seed, thread count and kernel path
// (core/cpu/cpu_description.h), so the pins are kept per kernel level: the suite runs at every level
// the machine can force (tests/CMakeLists.txt, SINKLAB_MAX_ISA) and compares exactly where the path
// is one the pins were recorded on. On another oneDNN ISA (another CPU generation) and in builds
// without optimization, the same numbers must hold to rounding (stated tolerances below).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "config_loading/config_loader.h"
#include "core/cpu/cpu_description.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

struct Pinned {
  const char* config;
  double train_loss, eval_mse, eval_max_abs_error;
  double bos_mass_last_head;  // bos_mass_nontrigger_mean of the last layer's last head
};

// One kernel path's pins (avx512's are also the bits of the -march=native build before the portable
// one): recorded with `SINKLAB_MAX_ISA=<level> build/tests/test_train
// --gtest_filter='PaperRegression.*'` (the failure messages print the values as hex floats).
struct PathPins {
  const char* kernel_level;
  const char* kernel_path;  // the whole path they were recorded on (with oneDNN's effective ISA)
  Pinned runs[4];
};

RunSummary run_short(const char* file) {
  const std::filesystem::path path = std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs/paper" / file;
  const ConfigVocabulary vocab = registered_vocabulary();
  const RunConfig c = load_run_config(path,
                                      {"train.max_steps=150", "train.eval_every=0", "task.eval_samples=200",
                                       "analysis.eval_attention_samples=200", "threads=1"},
                                      vocab);
  Trainer trainer(c);
  TrainOptions o;
  o.quiet = true;
  return trainer.run(o);
}

std::string hex(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", v);
  return text;
}

#if defined(__x86_64__)
const PathPins kPins[] = {
    {"sse42", "sse42+onednn:sse41",
     {{"1x1_softmax.yaml", 0x1.ed004cp-9, 0x1.f0d9dp-9, 0x1.ae802p-1, 0x1.0374b22283a84p-2},
      {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c662p-9, 0x1.0f5448p+0, 0x1.44beedc46ca9bp-9},
      {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c814833564fp-3},
      {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e15c29e02fp-11}}},
    {"avx", "avx+onednn:avx",
     {{"1x1_softmax.yaml", 0x1.ed004cp-9, 0x1.f0d9dp-9, 0x1.ae801ep-1, 0x1.0374b216e721ap-2},
      {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c662p-9, 0x1.0f544cp+0, 0x1.44beed9572db7p-9},
      {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c8148316ac9ep-3},
      {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e16410e379p-11}}},
    {"avx2", "avx2+onednn:avx2",
     {{"1x1_softmax.yaml", 0x1.ed004ep-9, 0x1.f0d9dp-9, 0x1.ae801ep-1, 0x1.0374b1d457c58p-2},
      {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c662p-9, 0x1.0f544cp+0, 0x1.44beee2aa947bp-9},
      {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c81482cd880cp-3},
      {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e1686961a5p-11}}},
    {"avx512", "avx512+onednn:avx512_core_bf16",
     {{"1x1_softmax.yaml", 0x1.ed004cp-9, 0x1.f0d9dp-9, 0x1.ae801ep-1, 0x1.0374b24098232p-2},
      {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c664p-9, 0x1.0f545p+0, 0x1.44beed7022db7p-9},
      {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c814825593cp-3},
      {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e15377dc87p-11}}},
};
#else
// AArch64, recorded under qemu-user (its floating point is IEEE's, bit for bit): a NEON-only CPU
// (cortex-a53, oneDNN's asimd kernels), an SVE one (max: 512-bit vectors, oneDNN's sve_512 kernels), and
// that one with SINKLAB_MAX_ISA=neon (oneDNN cannot be capped there). The three gave the same bits on
// these runs; other SVE lengths and oneDNN paths compare to rounding.
#define SINKLAB_AARCH64_RUNS                                                                   \
  {{"1x1_softmax.yaml", 0x1.ed004cp-9, 0x1.f0d9cep-9, 0x1.ae801cp-1, 0x1.0374b1d4118dep-2},    \
   {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c662p-9, 0x1.0f5448p+0, 0x1.44beee591875p-9},         \
   {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c81482dd9f74p-3},     \
   {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e166f7880cp-11}}
const PathPins kPins[] = {
    {"neon", "neon+onednn:asimd", SINKLAB_AARCH64_RUNS},
    {"neon", "neon+onednn:sve_512", SINKLAB_AARCH64_RUNS},
    {"sve", "sve512+onednn:sve_512", SINKLAB_AARCH64_RUNS},
};
#endif

TEST(PaperRegression, ShortRunsKeepTheirNumbersBitForBit) {
  const CpuDescription cpu = describe_cpu();
  // The pins of this very path if there are, else the first of its kernel level's (compared to rounding).
  const PathPins* pins = nullptr;
  for (const PathPins& p : kPins)
    if (cpu.kernel_path == p.kernel_path || (pins == nullptr && cpu.kernel_level == p.kernel_level)) pins = &p;
  ASSERT_NE(pins, nullptr) << "no pins for kernel level " << cpu.kernel_level;
#ifdef NDEBUG
  const bool exact = cpu.kernel_path == pins->kernel_path;
#else
  const bool exact = false;  // unoptimized kernels: other vectorization, no FMA contraction
#endif
  if (!exact)
    std::printf("PaperRegression: kernel path %s; pins of %s compared to rounding\n", cpu.kernel_path.c_str(),
                pins->kernel_path);
  for (const Pinned& p : pins->runs) {
    SCOPED_TRACE(std::string(p.config) + " on " + cpu.kernel_path);
    const RunSummary s = run_short(p.config);
    ASSERT_FALSE(s.heads.empty());
    EXPECT_EQ(s.steps, 150);
    const double bos = s.heads.back().bos_mass_nontrigger_mean;
    const std::string got = "{\"" + std::string(p.config) + "\", " + hex(s.train_loss) + ", " + hex(s.eval_mse) + ", " +
                            hex(s.eval_max_abs_error) + ", " + hex(bos) + "}";
    if (exact) {
      EXPECT_EQ(s.train_loss, p.train_loss) << got;
      EXPECT_EQ(s.eval_mse, p.eval_mse) << got;
      EXPECT_EQ(s.eval_max_abs_error, p.eval_max_abs_error) << got;
      EXPECT_EQ(bos, p.bos_mass_last_head) << got;
    } else {
      EXPECT_NEAR(s.train_loss, p.train_loss, 1e-3 * p.train_loss) << got;
      EXPECT_NEAR(s.eval_mse, p.eval_mse, 1e-3 * p.eval_mse) << got;
      EXPECT_NEAR(s.eval_max_abs_error, p.eval_max_abs_error, 1e-2 * p.eval_max_abs_error) << got;
      EXPECT_NEAR(bos, p.bos_mass_last_head, 1e-2 * p.bos_mass_last_head + 1e-6) << got;
    }
  }
}

}  // namespace
}  // namespace sinklab
