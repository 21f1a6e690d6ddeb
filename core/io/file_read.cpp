#include "core/io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "core/system_memory.h"

namespace sinklab {

namespace {

// Reads below this size skip the memory check (reading /proc/meminfo would cost more than they do).
constexpr uint64_t kCheckedReadBytes = uint64_t{64} << 20;

std::string bytes_text(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

ReadableFile::ReadableFile(const std::filesystem::path& path, const std::string& what, uint64_t max_bytes)
    : name_(what + " " + path.string()) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below); reads of a regular
  // file ignore the flag.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw FileReadError(name_ + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("cannot stat: " + std::string(std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) fail("is a directory, not a file");
  if (!S_ISREG(st.st_mode)) fail("is not a regular file");
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > max_bytes)
    fail("is " + bytes_text(size_) + ", more than the " + std::to_string(max_bytes) + " this file can hold");
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReadableFile::fail(const std::string& why) const { throw FileReadError(name_ + ": " + why); }

void ReadableFile::check_memory_for(uint64_t bytes, const std::string& purpose) const {
  if (bytes < kCheckedReadBytes) return;
  const std::optional<double> available = available_memory();
  if (available && static_cast<double>(bytes) > *available)
    fail(purpose + " needs " + bytes_text(bytes) + " of memory, more than the " +
         bytes_text(static_cast<uint64_t>(*available)) + " available");
}

namespace {

// "truncated" unless bytes [offset, offset + length) lie within the file.
void check_range(const ReadableFile& file, uint64_t offset, uint64_t length) {
  if (offset > file.size() || length > file.size() - offset)
    file.fail("truncated: bytes " + std::to_string(offset) + " .. " + std::to_string(offset + length) +
              " were asked for, the file has " + std::to_string(file.size()));
}

}  // namespace

void ReadableFile::read_into(uint64_t offset, uint64_t length, char* out) const {
  check_range(*this, offset, length);
  uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd_, out + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("read failed: " + std::string(std::strerror(errno)));
    if (n == 0) fail("shrank while being read");
    done += static_cast<uint64_t>(n);
  }
}

std::string ReadableFile::read(uint64_t offset, uint64_t length) const {
  check_range(*this, offset, length);
  check_memory_for(length, "reading it");
  std::string bytes(length, '\0');
  read_into(offset, length, bytes.data());
  return bytes;
}

std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& what) {
  const ReadableFile file(path, what, max_bytes);
  return file.read(0, file.size());
}

uint64_t regular_file_size(const std::filesystem::path& path, const std::string& what) {
  return ReadableFile(path, what, ReadableFile::kNoSizeLimit).size();
}

std::string read_file_range(const std::filesystem::path& path, uint64_t offset, uint64_t length,
                            const std::string& what) {
  return ReadableFile(path, what, ReadableFile::kNoSizeLimit).read(offset, length);
}

}  // namespace sinklab
