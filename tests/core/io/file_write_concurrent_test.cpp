// core/io/file_write.h with many writers of one path at once: threads of one process and several
// processes, as two `sinklab report` or two `eval` on one run folder are. Every write succeeds, and the
// file under the final name is always one writer's complete bytes, never a mix or a half.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/io/file_write.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBodyBytes = 16 * 1024;
constexpr int kWritesEach = 25;

// Writer `id`'s bytes: a header naming it, then a body of one letter; a reader can tell a whole version.
std::string version_of(int id) {
  return "writer " + std::to_string(id) + "\n" + std::string(kBodyBytes, static_cast<char>('a' + id % 26));
}

bool is_one_complete_version(const std::string& text, int writers) {
  for (int id = 0; id < writers; ++id)
    if (text == version_of(id)) return true;
  return false;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes version `id` kWritesEach times; the first failure's message, or "".
std::string write_repeatedly(const fs::path& path, int id) {
  try {
    for (int i = 0; i < kWritesEach; ++i) write_file_atomically(path, version_of(id));
  } catch (const FileWriteError& e) {
    return e.what();
  }
  return "";
}

TEST(WriteFileAtomicallyConcurrent, ManyThreadsAndProcessesWritingOnePathAllSucceedWithWholeVersions) {
  const fs::path dir = testing::fresh_test_dir();
  const fs::path path = dir / "summary.json";
  constexpr int kProcesses = 3, kThreads = 6, kWriters = kProcesses + kThreads;

  // The processes first (no thread exists yet to fork from); they wait on a pipe until the threads run.
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      char c;
      while (::read(go[0], &c, 1) < 0) {
      }
      ::_exit(write_repeatedly(path, kThreads + p).empty() ? 0 : 1);
    }
    children.push_back(pid);
  }
  ::close(go[0]);

  std::atomic<bool> start{false}, writing{true};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      while (!start) std::this_thread::yield();
      errors[static_cast<size_t>(t)] = write_repeatedly(path, t);
    });
  std::set<std::string> torn;  // what a reader saw under the final name that is no whole version
  int reads = 0;
  std::thread reader([&] {
    while (writing) {
      std::error_code ec;
      if (!fs::exists(path, ec)) continue;
      const std::string text = slurp(path);
      ++reads;
      if (!is_one_complete_version(text, kWriters)) torn.insert(text.substr(0, 40) + "... (" +
                                                                 std::to_string(text.size()) + " bytes)");
    }
  });
  start = true;
  ::close(go[1]);  // the processes start too
  for (std::thread& t : threads) t.join();
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer process failed";
  }
  writing = false;
  reader.join();

  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[static_cast<size_t>(t)], "") << "writer thread " << t;
  EXPECT_TRUE(torn.empty()) << torn.size() << " torn reads of " << reads << ", first: " << *torn.begin();
  EXPECT_TRUE(is_one_complete_version(slurp(path), kWriters));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"summary.json"}) << "temporaries left behind";
}

TEST(WriteFileAtomicallyConcurrent, EveryCallDrawsATemporaryNameOfItsOwn) {
  std::set<std::string> suffixes;
  for (int i = 0; i < 1000; ++i) suffixes.insert(unique_temporary_suffix());
  EXPECT_EQ(suffixes.size(), 1000u);
  const std::string suffix = *suffixes.begin();
  EXPECT_EQ(suffix.find("." + std::to_string(::getpid()) + "-"), 0u) << suffix;
  EXPECT_TRUE(suffix.ends_with(".tmp")) << suffix;
}

TEST(WriteFileAtomicallyConcurrent, ATemporaryNameTellsItsFinalName) {
  EXPECT_EQ(final_name_of_temporary("summary.json" + unique_temporary_suffix()), "summary.json");
  EXPECT_EQ(final_name_of_temporary("summary.json.4711-9f3a0c2e.tmp"), "summary.json");
  EXPECT_EQ(final_name_of_temporary("summary.json.tmp"), "summary.json");  // the name earlier versions used
  EXPECT_EQ(final_name_of_temporary("fig.png.12-ABCDEF01.tmp"), "fig.png");
  EXPECT_EQ(final_name_of_temporary("a.12-xyz.tmp"), "a.12-xyz");  // not a suffix of ours: only ".tmp" goes
  EXPECT_EQ(final_name_of_temporary("summary.json"), "");
  EXPECT_EQ(final_name_of_temporary(".tmp"), "");
}

}  // namespace
}  // namespace sinklab
