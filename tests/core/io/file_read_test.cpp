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

// A sparse 12 GB file (a hole, no disk used) is refused by its size alone: nothing is read or allocated.
TEST(ReadableFile, AHugeSparseFileIsRefusedByItsSizeWithoutBeingRead) {
  const fs::path p = fs::temp_directory_path() / ("sinklab-sparse-" + std::to_string(::getpid()));
  std::ofstream(p) << "x";
  fs::resize_file(p, uint64_t{12} << 30);
  try {
    const ReadableFile file(p, "npz file", uint64_t{1} << 30);
    ADD_FAILURE() << "opened";
  } catch (const FileReadError& e) {
    EXPECT_NE(std::string(e.what()).find("npz file " + p.string() + ": is 12884901888 bytes, more than the 1073741824"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(read_regular_file(p, uint64_t{1} << 30, "x"), FileReadError);
  fs::remove(p);
}

TEST(ReadableFile, ReadsRangesAndRefusesWhatLiesBeyondTheFileOrTheMemory) {
  const fs::path p = fs::temp_directory_path() / ("sinklab-range-" + std::to_string(::getpid()));
  std::ofstream(p) << "0123456789";
  const ReadableFile file(p, "checkpoint", 100);
  EXPECT_EQ(file.size(), 10u);
  EXPECT_EQ(file.read(2, 3), "234");
  EXPECT_EQ(file.name(), "checkpoint " + p.string());
  EXPECT_THROW(file.read(8, 3), FileReadError);
  EXPECT_THROW(file.read(uint64_t{1} << 63, uint64_t{1} << 63), FileReadError);
  try {
    file.check_memory_for(uint64_t{1} << 62, "its maps");  // 4 EiB: more than any machine has
    ADD_FAILURE() << "accepted";
  } catch (const FileReadError& e) {
    const std::string expected = "checkpoint " + p.string() + ": its maps needs 4611686018427387904 bytes of memory";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(file.check_memory_for(1 << 20, "a little"));
  fs::remove(p);
}

TEST(ReadableFile, OpensAFifoWithoutWaitingAndRefusesIt) {
  const fs::path p = fs::temp_directory_path() / ("sinklab-fifo2-" + std::to_string(::getpid()));
  fs::remove(p);
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  auto opening = std::async(std::launch::async, [&] {
    try {
      ReadableFile(p, "attention map", 100);
    } catch (const FileReadError& e) {
      return std::string(e.what());
    }
    return std::string("opened");
  });
  ASSERT_EQ(opening.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "blocked on the FIFO";
  EXPECT_EQ(opening.get(), "attention map " + p.string() + ": is not a regular file");
  fs::remove(p);
}

}  // namespace
}  // namespace sinklab
