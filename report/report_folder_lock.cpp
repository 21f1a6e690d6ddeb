#include "report/report_folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/io/file_write.h"

namespace sinklab {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int error) {
  throw FileWriteError(path.string() + ": " + what + ": " + std::strerror(error));
}

}  // namespace

ReportFolderLock::ReportFolderLock(const std::filesystem::path& dir, std::ostream& log) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / ".report.lock";
  // O_NONBLOCK: a FIFO planted at the name would otherwise block the open; only a regular file is locked.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int error = errno;
    if (const std::string kind = non_regular_file_at(path); !kind.empty())
      throw FileWriteError(path.string() + ": is " + kind + ", not the report folder's lock file (remove it)");
    fail(path, "cannot open the report folder's lock", error);
  }
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw FileWriteError(path.string() + ": is not a regular file, not the report folder's lock file (remove it)");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    if (error == EWOULDBLOCK) {
      char holder[32] = {};
      const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
      log << "report: waiting for another sinklab report into " << dir.string()
          << (n > 0 ? " (pid " + std::string(holder, static_cast<size_t>(n)) + ")" : std::string()) << " to finish\n"
          << std::flush;
      while ((error = ::flock(fd_, LOCK_EX) == 0 ? 0 : errno) == EINTR) {
      }
    }
    if (error != 0) {
      ::close(fd_);
      fd_ = -1;
      fail(path, "cannot lock the report folder", error);
    }
  }
  // The holder's pid, for the message above; informational only, the flock is what counts.
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    fail(path, "cannot write", error);
  }
}

ReportFolderLock::~ReportFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sinklab
