#include "core/io/file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace sinklab {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
  throw FileWriteError(path.string() + ": " + what + ": " + std::strerror(error));
}

// Writes all of bytes or returns the errno of the failure (0 on success).
int write_all(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  write_file_atomically(path, std::span<const std::string_view>(&bytes, 1));
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  ::unlink(tmp.c_str());  // a stale temporary (or a planted symlink) from an earlier crash
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(tmp, "cannot create", errno);
  int error = 0;
  for (size_t i = 0; i < pieces.size() && error == 0; ++i) error = write_all(fd, pieces[i]);
  const char* what = "write failed";
  if (error == 0 && ::fsync(fd) != 0) error = errno, what = "fsync failed";
  if (::close(fd) != 0 && error == 0) error = errno, what = "close failed";
  if (error != 0) {
    ::unlink(tmp.c_str());
    fail(tmp, what, error);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename the temporary file into place", error);
  }
}

AppendFile::AppendFile(const std::filesystem::path& path, uint64_t keep_bytes) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(path, errno == ELOOP ? "is a symlink, refusing to write through it" : "cannot open for writing", errno);
  const off_t end = ::lseek(fd_, 0, SEEK_END);
  if (end < 0) {
    const int error = errno;
    ::close(fd_);
    fail(path, "cannot seek", error);
  }
  if (static_cast<uint64_t>(end) < keep_bytes) {
    ::close(fd_);
    throw FileWriteError(path.string() + ": has " + std::to_string(end) + " bytes, fewer than the " +
                         std::to_string(keep_bytes) + " the checkpoint recorded (the log was truncated or replaced)");
  }
  if (::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0 || ::lseek(fd_, static_cast<off_t>(keep_bytes), SEEK_SET) < 0) {
    const int error = errno;
    ::close(fd_);
    fail(path, "cannot truncate", error);
  }
  size_ = keep_bytes;
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::append(std::string_view bytes) {
  if (const int error = write_all(fd_, bytes); error != 0) {
    // Drop the partial record, so the log still ends with a whole line.
    if (::ftruncate(fd_, static_cast<off_t>(size_)) == 0) ::lseek(fd_, static_cast<off_t>(size_), SEEK_SET);
    fail(path_, "write failed", error);
  }
  size_ += bytes.size();
}

void AppendFile::sync() {
  if (::fsync(fd_) != 0) fail(path_, "fsync failed", errno);
}

}  // namespace sinklab
