#include "core/io/file_read.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sinklab {
namespace {

namespace fs = std::filesystem;

std::string message_of(const fs::path& p, uint64_t max) {
  try {
    read_regular_file(p, max, "checkpoint");
  } catch (const FileReadError& e) {
    return e.what();
  }
  return "";
}

TEST(ReadRegularFile, ReadsAFile) {
  const fs::path p = fs::temp_directory_path() / ("sinklab-read-" + std::to_string(::getpid()));
  std::ofstream(p) << "hello";
  EXPECT_EQ(read_regular_file(p, 100, "x"), "hello");
  EXPECT_NE(message_of(p, 4).find("5 bytes, more than the 4"), std::string::npos) << message_of(p, 4);
  fs::remove(p);
}

TEST(ReadRegularFile, RefusesDirectoriesDevicesAndMissingFiles) {
  EXPECT_NE(message_of(fs::temp_directory_path(), 100).find("is a directory"), std::string::npos);
  EXPECT_NE(message_of("/dev/zero", 100).find("checkpoint /dev/zero: is not a regular file"), std::string::npos);
  EXPECT_NE(message_of("/no/such/file", 100).find("checkpoint /no/such/file: cannot open"), std::string::npos);
}

}  // namespace
}  // namespace sinklab
