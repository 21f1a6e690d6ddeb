// tests/support/test_dir.h, the scratch directories of every suite: one per test and process, so two
// processes running one test at once (a kernel suite at two ISA levels, the arm64 subset's two CPU
// models) never clear or write each other's files; what ended processes left goes on the next run.
#include "tests/support/test_dir.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace sinklab::testing {
namespace {

namespace fs = std::filesystem;

// The id of a process that has ended (a child, reaped).
pid_t ended_process_id() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(TestDir, IsNamedByTheTestAndTheProcess) {
  const fs::path dir = fresh_test_dir();
  EXPECT_EQ(dir.filename(), std::to_string(::getpid()));
  EXPECT_EQ(dir.parent_path().filename(), "TestDir.IsNamedByTheTestAndTheProcess");
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_EQ(test_file("a.txt"), dir / "a.txt");
}

TEST(TestDir, FreshEmptiesOnlyThisProcesssDirectoryAndClearsWhatEndedProcessesLeft) {
  const fs::path dir = fresh_test_dir();
  write_text(dir / "mine.txt", "x");
  const fs::path parent = dir.parent_path();
  // A running process's directory (the one that started this test: it waits for us) and leftovers of
  // an ended process and of the layout before process ids.
  const fs::path running = parent / std::to_string(::getppid());
  const fs::path ended = parent / std::to_string(ended_process_id());
  write_text(running / "busy.txt", "in use");
  write_text(ended / "old.txt", "left");
  write_text(parent / "summary.json", "old layout");

  const fs::path again = fresh_test_dir();
  EXPECT_EQ(again, dir);
  EXPECT_FALSE(fs::exists(dir / "mine.txt"));
  EXPECT_TRUE(fs::exists(running / "busy.txt")) << "a running process's directory was cleared";
  EXPECT_FALSE(fs::exists(ended)) << "an ended process's directory stayed";
  EXPECT_FALSE(fs::exists(parent / "summary.json"));
  fs::remove_all(running);
}

TEST(TestDir, AForkedChildWritesIntoItsParentsDirectory) {
  const fs::path dir = fresh_test_dir();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    write_text(test_file("from_child.txt"), "child");
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_EQ(read_text(dir / "from_child.txt"), "child");
}

}  // namespace
}  // namespace sinklab::testing
