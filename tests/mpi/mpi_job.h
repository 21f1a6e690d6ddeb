#pragma once
// Running sinklab under a real `mpirun` from tests (tests/mpi/): finding mpirun, starting and waiting
// for a job in the background, finding its ranks' processes, and cleaning up after a test. Every wait
// is bounded.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/apps/cli_process.h"
#include "tests/support/test_dir.h"  // read_text

namespace sinklab::testing {

// mpirun from PATH, or nothing.
inline std::optional<std::filesystem::path> find_mpirun() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / "mpirun";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// A /proc file of a process that may end while it is read: a read that fails (ESRCH once the process
// is gone) ends the text instead of throwing, as std::filebuf does.
inline std::string read_proc_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<size_t>(got));
  ::close(fd);
  return text;
}

// Pids of the processes whose command line mentions `text` (a test's unique folder).
inline std::vector<pid_t> processes_mentioning(const std::string& text) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_proc_file(entry.path() / "cmdline");
    std::string stat = read_proc_file(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;  // ended
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(text) != std::string::npos) pids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return pids;
}

// Rank `rank` of an MPI job: a process whose environment says so and whose command line names `text`
// and the sinklab command `command`.
inline std::optional<pid_t> rank_process(int rank, const std::string& text, const std::string& command) {
  for (const pid_t pid : processes_mentioning(text)) {
    std::string environ = read_proc_file("/proc/" + std::to_string(pid) + "/environ");
    for (char& c : environ)
      if (c == '\0') c = '\n';
    const std::string cmdline = read_proc_file("/proc/" + std::to_string(pid) + "/cmdline");
    if (environ.find("\nOMPI_COMM_WORLD_RANK=" + std::to_string(rank) + "\n") != std::string::npos &&
        cmdline.find(command) != std::string::npos)
      return pid;
  }
  return std::nullopt;
}

// A test with its own folder dir_, mpirun_ found, and a background job killed with its ranks at the end.
class MpiJobTest : public ::testing::Test {
 protected:
  using Clock = std::chrono::steady_clock;

  void SetUp() override {
    const auto mpirun = find_mpirun();
    // A missing MPI is a broken setup, not a reason to skip: the README's test command must cover it.
    ASSERT_TRUE(mpirun.has_value()) << "mpirun not found on PATH: run scripts/setup.sh (it installs openmpi-bin "
                                       "and libopenmpi-dev), then rebuild";
    mpirun_ = mpirun->string();
    dir_ = std::filesystem::temp_directory_path() / ("sinklab_mpi_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (background_ > 0) {
      ::kill(background_, SIGKILL);
      ::waitpid(background_, nullptr, 0);
    }
    for (const pid_t pid : processes_mentioning(dir_.string())) ::kill(pid, SIGKILL);
    std::filesystem::remove_all(dir_);
  }

  // `sinklab ARGS` on `ranks` ranks of this machine.
  std::string mpi_sinklab(int ranks, const std::string& args) const {
    return mpirun_ + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " " + sinklab_binary() +
           " " + args;
  }

  // Starts a shell command in the background with its output in `log`.
  pid_t start(const std::string& command, const std::filesystem::path& log) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      const std::string line = command + " >" + log.string() + " 2>&1";
      ::execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    background_ = pid;
    return pid;
  }

  // The exit status of the background command, or nothing if it is still running after `limit`.
  std::optional<int> wait_for(pid_t pid, std::chrono::seconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        background_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  // Waits up to `limit` until no process mentions this test's folder; true when none is left.
  bool all_ended(std::chrono::seconds limit) const {
    const auto quiet = Clock::now() + limit;
    while (Clock::now() < quiet && !processes_mentioning(dir_.string()).empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return processes_mentioning(dir_.string()).empty();
  }

  std::string mpirun_;
  std::filesystem::path dir_;
  pid_t background_ = -1;
};

}  // namespace sinklab::testing
