#include "core/io/file_write.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstdio>
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

// True when the n bytes at p are all zero; stops at the first 4 KiB that is not.
bool all_zero(const char* p, size_t n) {
  constexpr size_t kChunk = 4096;
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t end = std::min(n, begin + kChunk);
    uint64_t any = 0;
    size_t i = begin;
    for (; i + 8 <= end; i += 8) {
      uint64_t word;
      std::memcpy(&word, p + i, 8);
      any |= word;
    }
    for (; i < end; ++i) any |= static_cast<unsigned char>(p[i]);
    if (any != 0) return false;
  }
  return true;
}

// write_all for a fresh file, leaving holes where whole MiB blocks are zero (a step-0 checkpoint's AdamW
// moments: two thirds of its bytes): the file reads back the same, and the disk writes only the rest.
// *offset is the file position, advanced past what was written or skipped.
int write_leaving_holes(int fd, std::string_view bytes, uint64_t* offset) {
  constexpr size_t kBlock = size_t{1} << 20;
  size_t done = 0;
  while (done < bytes.size()) {
    const size_t n = std::min(kBlock, bytes.size() - done);
    const std::string_view block = bytes.substr(done, n);
    if (n == kBlock && all_zero(block.data(), n)) {
      if (::lseek(fd, static_cast<off_t>(n), SEEK_CUR) < 0) return errno;
    } else if (const int error = write_all(fd, block); error != 0) {
      return error;
    }
    done += n;
    *offset += n;
  }
  return 0;
}

// What a non-regular file is, by its lstat mode.
std::string file_type_text(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// 32 random bits for a temporary name: getrandom, or (without it) the clock and a per-process count.
uint32_t random_bits() {
  uint32_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) return bits;
  static std::atomic<uint32_t> count{0};
  const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return static_cast<uint32_t>(now ^ (now >> 32)) * 2654435761u + count.fetch_add(1);
}

bool all_digits(std::string_view text, bool hex) {
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!(hex ? std::isxdigit(u) : std::isdigit(u))) return false;
  }
  return !text.empty();
}

}  // namespace

std::string unique_temporary_suffix() {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".%ld-%08x.tmp", static_cast<long>(::getpid()), random_bits());
  return suffix;
}

std::string final_name_of_temporary(std::string_view name) {
  if (!name.ends_with(".tmp") || name.size() <= 4) return "";
  name.remove_suffix(4);
  // ".<pid>-<8 hex>" before ".tmp": this writer's own suffix; without it, the shared name of earlier versions.
  const size_t dot = name.rfind('.'), dash = name.rfind('-');
  if (dot != std::string_view::npos && dot > 0 && dash != std::string_view::npos && dash > dot &&
      all_digits(name.substr(dot + 1, dash - dot - 1), false) && name.size() - dash - 1 == 8 &&
      all_digits(name.substr(dash + 1), true))
    name = name.substr(0, dot);
  return std::string(name);
}

std::string non_regular_file_at(const std::filesystem::path& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return file_type_text(st.st_mode);
}

void refuse_to_replace(const std::filesystem::path& path) {
  const std::string kind = non_regular_file_at(path);
  if (!kind.empty() && kind != "a symbolic link")
    throw FileWriteError(path.string() + ": is " + kind + "; sinklab writes only regular files and never replaces " +
                         kind);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  write_file_atomically(path, std::span<const std::string_view>(&bytes, 1));
}

void write_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces) {
  refuse_to_replace(path);  // before anything is written
  // A name of this call's own, created exclusively: another writer's temporary (or anything planted)
  // already there is left alone and another name drawn.
  std::filesystem::path tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = path;
    tmp += unique_temporary_suffix();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && (errno != EEXIST || attempt == 99)) fail(tmp, "cannot create", errno);
  }
  int error = 0;
  uint64_t size = 0;
  for (size_t i = 0; i < pieces.size() && error == 0; ++i) error = write_leaving_holes(fd, pieces[i], &size);
  // A file ending in a hole has its size only once truncated to it.
  if (error == 0 && ::ftruncate(fd, static_cast<off_t>(size)) != 0) error = errno;
  const char* what = "write failed";
  if (error == 0 && ::fsync(fd) != 0) error = errno, what = "fsync failed";
  if (::close(fd) != 0 && error == 0) error = errno, what = "close failed";
  if (error != 0) {
    ::unlink(tmp.c_str());
    fail(tmp, what, error);
  }
  try {
    refuse_to_replace(path);  // again: something may have appeared there while the bytes were written
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename the temporary file into place", error);
  }
}

AppendFile::AppendFile(const std::filesystem::path& path, uint64_t keep_bytes) : path_(path) {
  // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader; only a regular file is kept.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int error = errno;
    if (error == ELOOP) fail(path, "is a symlink, refusing to write through it", error);
    if (const std::string kind = non_regular_file_at(path); !kind.empty())  // a FIFO without a reader: ENXIO
      throw FileWriteError(path.string() + ": is " + kind + "; sinklab appends only to regular files");
    fail(path, "cannot open for writing", error);
  }
  struct stat st;
  const int error = ::fstat(fd_, &st) != 0 ? errno : 0;
  if (error != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    if (error != 0) fail(path, "cannot stat", error);
    throw FileWriteError(path.string() + ": is " + file_type_text(st.st_mode) +
                         "; sinklab appends only to regular files");
  }
  if (::fcntl(fd_, F_SETFL, 0) != 0) {  // blocking writes again
    const int fcntl_error = errno;
    ::close(fd_);
    fd_ = -1;
    fail(path, "cannot open for writing", fcntl_error);
  }
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
  if (::ftruncate(fd_, static_cast<off_t>(keep_bytes)) != 0 ||
      ::lseek(fd_, static_cast<off_t>(keep_bytes), SEEK_SET) < 0) {
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
