#pragma once
// A JSON file a command wrote, for the command tests: a missing or unreadable file is a test failure
// naming it, and reads as null.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace sinklab::testing {

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return in.good() ? nlohmann::json::parse(in) : nlohmann::json();
}

}  // namespace sinklab::testing
