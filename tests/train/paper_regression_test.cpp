// Pins the numbers of short runs of the paper configs (1x1 and 2x2, softmax and relu, one thread), so
// that a refactoring that changes any bit of training, evaluation or the sink statistics fails here.
// The expected values were produced by the code before the redesign for extension; they are exact
// (bit-identical results are a promise: same config, seed, thread count and build).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "configs/config_loader.h"
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

RunSummary run_short(const char* file) {
  const std::filesystem::path path = std::filesystem::path(SINKLAB_SOURCE_DIR) / "configs/paper" / file;
  const ConfigVocabulary vocab{normalizer_registry().names(), task_names()};
  const RunConfig c = load_run_config(
      path, {"train.max_steps=150", "train.eval_every=0", "task.eval_samples=200", "analysis.eval_attention_samples=200",
             "threads=1"},
      vocab);
  Trainer trainer(c);
  TrainOptions o;
  o.quiet = true;
  return trainer.run(o);
}

TEST(PaperRegression, ShortRunsKeepTheirNumbersBitForBit) {
  const Pinned pinned[] = {
      {"1x1_softmax.yaml", 0x1.ed004cp-9, 0x1.f0d9dp-9, 0x1.ae801ep-1, 0x1.0374b24098232p-2},
      {"1x1_relu.yaml", 0x1.84007p-9, 0x1.94c664p-9, 0x1.0f545p+0, 0x1.44beed7022db7p-9},
      {"2x2_softmax.yaml", 0x1.4d141p-8, 0x1.51323ap-8, 0x1.aa74d6p-1, 0x1.4c814825593cp-3},
      {"2x2_relu.yaml", 0x1.5bbf18p-8, 0x1.60923ep-8, 0x1.b6cca8p-1, 0x1.737e15377dc87p-11},
  };
  for (const Pinned& p : pinned) {
    SCOPED_TRACE(p.config);
    const RunSummary s = run_short(p.config);
    ASSERT_FALSE(s.heads.empty());
    EXPECT_EQ(s.steps, 150);
#ifdef NDEBUG
    // The pinned bits are the Release build's (-march=native kernels): exact there.
    EXPECT_EQ(s.train_loss, p.train_loss);
    EXPECT_EQ(s.eval_mse, p.eval_mse);
    EXPECT_EQ(s.eval_max_abs_error, p.eval_max_abs_error);
    EXPECT_EQ(s.heads.back().bos_mass_nontrigger_mean, p.bos_mass_last_head);
#else
    // A Debug / sanitizer build runs other (non-vectorized) kernels: same numbers to rounding only.
    EXPECT_NEAR(s.train_loss, p.train_loss, 1e-3 * p.train_loss);
    EXPECT_NEAR(s.eval_mse, p.eval_mse, 1e-3 * p.eval_mse);
    EXPECT_NEAR(s.eval_max_abs_error, p.eval_max_abs_error, 1e-2 * p.eval_max_abs_error);
    EXPECT_NEAR(s.heads.back().bos_mass_nontrigger_mean, p.bos_mass_last_head, 1e-2 * p.bos_mass_last_head + 1e-6);
#endif
  }
}

}  // namespace
}  // namespace sinklab
