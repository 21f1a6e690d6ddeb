// The shipped bigram_backcopy and induction configs train end to end (on the test fixture corpus, which
// has the KJV's 63 distinct bytes), and their summaries carry the per-role metrics and task baselines.
// Two minutes each in the Debug + sanitizer build, so they live with the other trainings to a result
// (tests/CMakeLists.txt: the sanitizer pass skips this area; the Release pass runs it). The configs'
// loading and their errors are checked in tests/train/task_configs_training_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"
#include "train/trainer.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

RunSummary train(const std::string& config, std::vector<std::string> overrides) {
  const ConfigVocabulary vocab = registered_vocabulary();
  overrides.push_back("task.eval_samples=300");
  overrides.push_back("analysis.eval_attention_samples=100");
  Trainer t(load_run_config(fs::path(SINKLAB_SOURCE_DIR) / "configs/tasks" / config, overrides, vocab));
  TrainOptions o;
  o.quiet = true;
  return t.run(o);
}

TEST(TaskConfigsTraining, BigramBackcopySoftmaxLearnsTheCopyAndApproachesTheChainEntropy) {
  const RunSummary s =
      train("bigram_backcopy_softmax.yaml",
            {"task.corpus=" SINKLAB_SOURCE_DIR "/tests/fixtures/corpus/kjv_excerpt.txt", "train.max_steps=1200"});
  ASSERT_EQ(s.task_baselines.size(), 1u);
  EXPECT_EQ(s.task_baselines[0].first, "markov_entropy");
  const double entropy = s.task_baselines[0].second;
  ASSERT_TRUE(s.eval_active_accuracy && s.eval_no_op_loss);
  EXPECT_GT(*s.eval_active_accuracy, 0.95);
  // Not below the optimum by more than the evaluation set's scatter, and near it.
  EXPECT_GT(*s.eval_no_op_loss, entropy - 0.1);
  EXPECT_LT(*s.eval_no_op_loss, entropy + 0.3);
}

TEST(TaskConfigsTraining, InductionSoftmaxPredictsTheSecondCopy) {
  const RunSummary s = train("induction_softmax.yaml", {"train.max_steps=1500"});
  ASSERT_TRUE(s.eval_active_accuracy && s.eval_no_op_loss && s.eval_no_op_accuracy);
  EXPECT_GT(*s.eval_active_accuracy, 0.9);
  ASSERT_EQ(s.task_baselines.size(), 2u);
  EXPECT_NEAR(*s.eval_no_op_loss, s.task_baselines[0].second, 0.15) << "the first copy is at chance";
}

}  // namespace
}  // namespace sinklab
