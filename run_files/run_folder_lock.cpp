#include "run_files/run_folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/io/file_write.h"

namespace sinklab {

RunFolderLock::RunFolderLock(const std::filesystem::path& dir, const std::string& what) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) throw FileWriteError(path.string() + ": cannot open the run folder's lock: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (error != EWOULDBLOCK) throw FileWriteError(path.string() + ": cannot lock: " + std::strerror(error));
    throw RunFolderBusy(what + " " + dir.string() + " is in use by another sinklab process" +
                        (n > 0 ? " (pid " + std::string(holder, static_cast<size_t>(n)) + ")" : std::string()) +
                        "; wait for it to end or stop it");
  }
  // The holder's pid, for the message above; informational only, the flock is what counts.
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    throw FileWriteError(path.string() + ": cannot write: " + std::strerror(error));
  }
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sinklab
