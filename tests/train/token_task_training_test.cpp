// The token path end to end on the copy task (configs/tasks/copy.yaml): token ids -> embedding ->
// logits -> cross-entropy over scored positions; it learns on several seeds, reports token metrics
// (and null MSE fields), and resumes bit-identically.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunConfig copy_config(const std::vector<std::string>& overrides) {
  const ConfigVocabulary vocab = registered_vocabulary();
  return load_run_config(fs::path(SINKLAB_SOURCE_DIR) / "configs/tasks/copy.yaml", overrides, vocab);
}

TEST(TokenTaskTraining, CopyIsLearnedOnSeveralSeeds) {
  for (const char* seed : {"seed=0", "seed=7", "seed=123"}) {
    SCOPED_TRACE(seed);
    Trainer t(copy_config({seed, "task.eval_samples=400", "analysis.eval_attention_samples=400"}));
    TrainOptions o;
    o.quiet = true;
    const RunSummary s = t.run(o);
    ASSERT_TRUE(s.eval_loss.has_value());
    ASSERT_TRUE(s.eval_accuracy.has_value());
    EXPECT_GT(*s.eval_accuracy, 0.99);
    EXPECT_LT(*s.eval_loss, 0.1);
    EXPECT_TRUE(std::isnan(s.eval_mse)) << "a token task has no MSE to report";
    EXPECT_TRUE(s.reached_stop_rule);
    EXPECT_EQ(s.eval_trigger, -1);
  }
}

TEST(TokenTaskTraining, ResumesBitIdentically) {
  const RunConfig c = copy_config({"train.max_steps=120", "train.stop_max_abs_error=0", "task.eval_samples=100",
                                   "analysis.eval_attention_samples=100"});
  TrainOptions straight;
  straight.quiet = true;
  Trainer reference(c);
  reference.run(straight);

  const fs::path dir = fs::temp_directory_path() / ("sinklab_token_resume_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  TrainOptions first = straight;
  first.run_dir = dir;
  first.stop_at_step = 50;
  { Trainer t(c); t.run(first); }
  TrainOptions second = straight;
  second.run_dir = dir;
  second.resume_from = dir / "checkpoint.bin";
  Trainer resumed(c);
  resumed.run(second);
  const auto a = reference.parameters().values(), b = resumed.parameters().values();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
