// The last line of defence of core/io/file_write.h: a device, FIFO or folder at a final name (or at a
// temporary name) is never renamed over or unlinked, and an append-only log refuses one without waiting for
// a FIFO's reader. As root, rename() replaces /dev/full as readily as a file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <iterator>
#include <string>

#include "core/io/file_write.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string write_error(const fs::path& path) {
  try {
    write_file_atomically(path, "bytes");
    return "";
  } catch (const FileWriteError& e) {
    return e.what();
  }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(WriteFileAtomicallyNonRegular, RefusesToReplaceAFifo) {
  const fs::path dir = testing::fresh_test_dir();
  ASSERT_EQ(::mkfifo((dir / "out.json").c_str(), 0644), 0);
  const std::string message = write_error(dir / "out.json");
  EXPECT_TRUE(contains(message, (dir / "out.json").string() + ": is a FIFO")) << message;
  EXPECT_TRUE(fs::is_fifo(dir / "out.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "a temporary was left";
}

TEST(WriteFileAtomicallyNonRegular, RefusesToReplaceADevice) {
  const std::string message = write_error("/dev/null");
  EXPECT_TRUE(contains(message, "/dev/null: is a character device")) << message;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_FALSE(fs::exists("/dev/null.tmp"));
}

// A writer's temporary name is its own, created exclusively: a FIFO at the name earlier versions used is
// neither opened (it would block) nor removed.
TEST(WriteFileAtomicallyNonRegular, RefusesAFolderAndLeavesANonRegularFileAtATemporaryNameAlone) {
  const fs::path dir = testing::fresh_test_dir();
  fs::create_directories(dir / "folder");
  EXPECT_TRUE(contains(write_error(dir / "folder"), "is a folder"));
  EXPECT_TRUE(fs::is_directory(dir / "folder"));
  ASSERT_EQ(::mkfifo((dir / "x.json.tmp").c_str(), 0644), 0);
  EXPECT_EQ(write_error(dir / "x.json"), "");
  EXPECT_TRUE(fs::is_fifo(dir / "x.json.tmp"));
  EXPECT_TRUE(fs::is_regular_file(dir / "x.json"));
}

TEST(WriteFileAtomicallyNonRegular, NonRegularFileAtNamesWhatIsThere) {
  const fs::path dir = testing::fresh_test_dir();
  EXPECT_EQ(non_regular_file_at(dir / "missing"), "");
  testing::write_text(dir / "file", "x");
  EXPECT_EQ(non_regular_file_at(dir / "file"), "");
  fs::create_symlink(dir / "file", dir / "link");
  EXPECT_EQ(non_regular_file_at(dir / "link"), "a symbolic link");
  EXPECT_EQ(non_regular_file_at(dir), "a folder");
  EXPECT_EQ(non_regular_file_at("/dev/null"), "a character device");
}

TEST(AppendFileNonRegular, RefusesAFifoWithoutWaitingForAReader) {
  const fs::path dir = testing::fresh_test_dir();
  ASSERT_EQ(::mkfifo((dir / "metrics.jsonl").c_str(), 0644), 0);
  try {
    AppendFile log(dir / "metrics.jsonl", 0);
    FAIL() << "a FIFO was opened as a log";
  } catch (const FileWriteError& e) {
    EXPECT_TRUE(contains(e.what(), "is a FIFO")) << e.what();
  }
  EXPECT_TRUE(fs::is_fifo(dir / "metrics.jsonl"));
}

TEST(AppendFileNonRegular, RefusesADevice) {
  try {
    AppendFile log("/dev/null", 0);
    FAIL() << "a device was opened as a log";
  } catch (const FileWriteError& e) {
    EXPECT_TRUE(contains(e.what(), "/dev/null: is a character device")) << e.what();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace sinklab
