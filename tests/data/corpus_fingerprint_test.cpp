// The corpus's content recorded at a run's start (data/corpus_fingerprint.h): a task that reads a file
// gets its size and FNV-1a hash, others none; a resume refuses a corpus whose content changed, even
// by one byte that keeps the config valid.
#include "data/corpus_fingerprint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "data/task_registry.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

TEST(CorpusFingerprint, ARunResumedOnAnEditedCorpusIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("sinklab_corpus_fingerprint_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "run");
  const fs::path corpus = dir / "corpus.txt";
  fs::copy_file(fs::path(SINKLAB_SOURCE_DIR) / "tests/fixtures/corpus/kjv_excerpt.txt", corpus);
  TaskConfig c;
  c.name = "bigram_backcopy";
  c.options.set("corpus", corpus.string());
  const auto fingerprint = corpus_fingerprint(c);
  ASSERT_TRUE(fingerprint.has_value());
  EXPECT_EQ((*fingerprint)["path"], corpus.string());
  EXPECT_EQ((*fingerprint)["bytes"], fs::file_size(corpus));
  EXPECT_EQ((*fingerprint)["fnv1a64"].get<std::string>().size(), 16u);

  std::ofstream(dir / "run" / "run.json") << nlohmann::json{{"corpus", *fingerprint}}.dump();
  EXPECT_NO_THROW(check_corpus_unchanged(dir / "run", c));
  std::ofstream(corpus, std::ios::app) << "e";  // a byte the corpus has: the config stays valid
  try {
    check_corpus_unchanged(dir / "run", c);
    ADD_FAILURE() << "an edited corpus was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("task.corpus changed since the run started"), std::string::npos) << e.what();
  }
  EXPECT_NE(corpus_fingerprint(c), fingerprint);

  // A task without a corpus has none, and a run.json without one passes.
  TaskConfig trigger;  // trigger_conditional
  EXPECT_FALSE(corpus_fingerprint(trigger).has_value());
  std::ofstream(dir / "run" / "run.json", std::ios::trunc) << "{}";
  EXPECT_NO_THROW(check_corpus_unchanged(dir / "run", c));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sinklab
