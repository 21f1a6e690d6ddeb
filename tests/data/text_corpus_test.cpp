// The text corpus: files are read whole and shared until they change, bad files name the config key,
// and the byte vocabulary is BOS = 0 then the distinct bytes in ascending order.
#include "data/text_corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "data/task.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = testing::test_file(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(TextCorpus, ReadsTheWholeFileAndSharesItUntilItChanges) {
  const auto path = write_file("corpus_a.txt", "ab\nba");
  const auto first = load_text_corpus(path.string(), "task.corpus");
  EXPECT_EQ(first->text, "ab\nba");
  EXPECT_EQ(load_text_corpus(path.string(), "task.corpus").get(), first.get());
  std::ofstream(path, std::ios::binary) << "abc\nbac";
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(2));
  const auto second = load_text_corpus(path.string(), "task.corpus");
  EXPECT_EQ(second->text, "abc\nbac");
  EXPECT_EQ(first->text, "ab\nba");  // a holder of the old text keeps it
}

TEST(TextCorpus, BadFilesNameTheKeyAndTheProblem) {
  const auto expect_error = [](const std::string& path, const std::string& needle) {
    try {
      load_text_corpus(path, "task.corpus");
      ADD_FAILURE() << "no error for " << path;
    } catch (const TaskError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("task.corpus"), std::string::npos) << e.what();
      ASSERT_EQ(e.keys().size(), 1u);
      EXPECT_EQ(e.keys()[0], "task.corpus");
    }
  };
  expect_error((std::filesystem::path(::testing::TempDir()) / "no_such_corpus.txt").string(), "not found");
  expect_error(::testing::TempDir(), "is a directory");
  expect_error(write_file("corpus_empty.txt", "").string(), "is empty");
  // Devices would be read without end: refused before reading.
  expect_error("/dev/zero", "task.corpus: corpus file /dev/zero: is not a regular file");
  expect_error("/dev/urandom", "is not a regular file");
}

TEST(CharVocabulary, BosThenDistinctBytesInAscendingOrder) {
  const CharVocabulary v("hello, world\n");
  // distinct bytes: '\n' ' ' ',' 'd' 'e' 'h' 'l' 'o' 'r' 'w'
  EXPECT_EQ(v.size(), 11);
  EXPECT_EQ(v.id_of('\n'), 1);
  EXPECT_EQ(v.id_of(' '), 2);
  EXPECT_EQ(v.id_of(','), 3);
  EXPECT_EQ(v.id_of('w'), 10);
  EXPECT_EQ(v.id_of('z'), -1);
  EXPECT_EQ(v.byte_of(5), 'e');
  const auto ids = v.encode("hello");
  EXPECT_EQ(ids, (std::vector<int32_t>{6, 5, 7, 7, 8}));
  const std::vector<int32_t> with_bos{CharVocabulary::kBos, 6, 5, 7, 7, 8, 99};
  EXPECT_EQ(v.decode(with_bos.data(), with_bos.size()), "hello");
}

TEST(CharVocabulary, EncodingAnUnknownByteNamesIt) {
  const CharVocabulary v("abc");
  try {
    v.encode("abz");
    ADD_FAILURE() << "no error";
  } catch (const TaskError& e) {
    EXPECT_NE(std::string(e.what()).find("'z' (at byte 2)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sinklab
