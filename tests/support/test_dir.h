#pragma once
// A fresh scratch directory per test under the build tree, removed when the test passes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sinklab::testing {

inline std::filesystem::path fresh_test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(SINKLAB_BINARY_DIR) / "test_tmp" /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `name` inside a directory of the current test's own (kept, not emptied): ctest runs tests of one
// binary as parallel processes, so a file name shared by two tests is a race.
inline std::filesystem::path test_file(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(SINKLAB_BINARY_DIR) / "test_tmp" /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::create_directories(dir);
  return dir / name;
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace sinklab::testing
