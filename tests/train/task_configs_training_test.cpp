// The shipped bigram_backcopy and induction configs load, and a wrong vocabulary size is one clear
// error. Their training end to end is in tests/integration/task_configs_training_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "config_loading/config_loader.h"
#include "data/task_registry.h"
#include "layers/normalizers/normalizer_registry.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

TEST(TaskConfigsTraining, ReluConfigsLoad) {
  const ConfigVocabulary vocab = registered_vocabulary();
  const RunConfig bb =
      load_run_config(fs::path(SINKLAB_SOURCE_DIR) / "configs/tasks/bigram_backcopy_relu.yaml",
                      {"task.corpus=" SINKLAB_SOURCE_DIR "/tests/fixtures/corpus/kjv_excerpt.txt"}, vocab);
  EXPECT_EQ(bb.model.attention.normalizer.name, "relu");
  const RunConfig induction =
      load_run_config(fs::path(SINKLAB_SOURCE_DIR) / "configs/tasks/induction_relu.yaml", {}, vocab);
  EXPECT_EQ(induction.model.attention.normalizer.name, "relu");
}

TEST(TaskConfigsTraining, AWrongVocabSizeSaysHowManyBytesTheCorpusHas) {
  const ConfigVocabulary vocab = registered_vocabulary();
  try {
    load_run_config(fs::path(SINKLAB_SOURCE_DIR) / "configs/tasks/bigram_backcopy_softmax.yaml",
                    {"task.corpus=" SINKLAB_SOURCE_DIR "/tests/fixtures/corpus/kjv_excerpt.txt", "model.vocab_size=65"},
                    vocab);
    FAIL() << "no error";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("model.vocab_size must equal 64 (task.corpus: the corpus has 63 distinct bytes + BOS), got 65"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace sinklab
