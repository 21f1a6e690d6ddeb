#include "core/io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sinklab {

namespace {

// An open regular file, closed on scope exit; refusals name `what` and the path.
struct OpenFile {
  std::string name;
  int fd = -1;
  uint64_t size = 0;
  OpenFile(const std::filesystem::path& path, const std::string& what) : name(what + " " + path.string()) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below); reads of a regular
    // file ignore the flag.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw FileReadError(name + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail("cannot stat: " + std::string(std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) fail("is a directory, not a file");
    if (!S_ISREG(st.st_mode)) fail("is not a regular file");
    size = static_cast<uint64_t>(st.st_size);
  }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
  [[noreturn]] void fail(const std::string& why) {
    ::close(fd);
    fd = -1;
    throw FileReadError(name + ": " + why);
  }
  // length bytes from offset; `shrank` says what a short read means.
  std::string read(uint64_t offset, uint64_t length, const char* shrank) {
    std::string bytes(length, '\0');
    size_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(fd, bytes.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("read failed: " + std::string(std::strerror(errno)));
      if (n == 0) fail(shrank);
      done += static_cast<size_t>(n);
    }
    return bytes;
  }
};

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& what) {
  OpenFile file(path, what);
  if (file.size > max_bytes)
    file.fail("is " + std::to_string(file.size) + " bytes, more than the " + std::to_string(max_bytes) +
              " this file can hold");
  return file.read(0, file.size, "shrank while being read");
}

uint64_t regular_file_size(const std::filesystem::path& path, const std::string& what) {
  return OpenFile(path, what).size;
}

std::string read_file_range(const std::filesystem::path& path, uint64_t offset, uint64_t length, const std::string& what) {
  OpenFile file(path, what);
  if (offset > file.size || length > file.size - offset)
    file.fail("truncated: bytes " + std::to_string(offset) + " .. " + std::to_string(offset + length) +
              " were asked for, the file has " + std::to_string(file.size));
  return file.read(offset, length, "shrank while being read");
}

}  // namespace sinklab
