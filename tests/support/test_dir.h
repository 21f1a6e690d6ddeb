#pragma once
// A scratch directory per test and per process under the build tree. The process id is part of the
// name because one test can run in two processes at once: ctest runs the kernel suites again at each
// ISA level beside the per-test entries, and the arm64 subset runs two CPU models side by side. A
// directory stays after its process ends (to look at a failure) until the test runs again.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace sinklab::testing {

// True when `name` is the id of a process that still runs (so its scratch directory is in use).
inline bool names_a_live_process(const std::string& name) {
  if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) return false;
  const pid_t pid = static_cast<pid_t>(std::stol(name));
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

// The test process's id, taken when the binary starts: a child forked by a test (a death test, a writer)
// keeps its parent's directory.
inline const pid_t test_process_id = ::getpid();

// This process's directory for the current test: test_tmp/<suite>.<test>/<pid>. Creating it removes
// what ended processes left beside it.
inline std::filesystem::path own_test_dir() {
  namespace fs = std::filesystem;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path parent =
      fs::path(SINKLAB_BINARY_DIR) / "test_tmp" / (std::string(info->test_suite_name()) + "." + info->name());
  const std::string own = std::to_string(test_process_id);
  fs::create_directories(parent);
  for (const auto& entry : fs::directory_iterator(parent)) {
    const std::string name = entry.path().filename().string();
    std::error_code ignored;  // another process may clear the same leftover at once
    if (name != own && !names_a_live_process(name)) fs::remove_all(entry.path(), ignored);
  }
  fs::create_directories(parent / own);
  return parent / own;
}

// The current test's directory, emptied.
inline std::filesystem::path fresh_test_dir() {
  const std::filesystem::path dir = own_test_dir();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `name` inside the current test's directory (kept, not emptied).
inline std::filesystem::path test_file(const std::string& name) { return own_test_dir() / name; }

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace sinklab::testing
