#include "core/io/file_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
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

// A named pipe is refused at once: opening one for reading would wait for a writer forever.
TEST(ReadRegularFile, RefusesANamedPipeWithoutWaitingForAWriter) {
  const fs::path p = fs::temp_directory_path() / ("sinklab-fifo-" + std::to_string(::getpid()));
  fs::remove(p);
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] { return message_of(p, 100); });
  ASSERT_EQ(reading.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "blocked on the FIFO";
  EXPECT_NE(reading.get().find(": is not a regular file"), std::string::npos);
  EXPECT_THROW(regular_file_size(p, "metrics log"), FileReadError);
  fs::remove(p);
}

}  // namespace
}  // namespace sinklab
