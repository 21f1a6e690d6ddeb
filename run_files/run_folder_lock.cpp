#include "run_files/run_folder_lock.h"

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

int lock_file_exclusively(const std::filesystem::path& path, const std::string& what, std::string& holder,
                          const std::function<void(const std::string& holder)>& on_wait) {
  // O_NONBLOCK: a FIFO planted at the name would otherwise block the open; only a regular file is locked.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    if (const std::string kind = non_regular_file_at(path); !kind.empty())
      throw FileWriteError(path.string() + ": is " + kind + ", not the " + what + " (remove it)");
    fail(path, "cannot open the " + what, error);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileWriteError(path.string() + ": is not a regular file, not the " + what + " (remove it)");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    if (error == EWOULDBLOCK) {
      char text[32] = {};
      const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
      holder = n > 0 ? std::string(text, static_cast<size_t>(n)) : std::string();
      if (!on_wait) {
        ::close(fd);
        return -1;
      }
      on_wait(holder);
      while ((error = ::flock(fd, LOCK_EX) == 0 ? 0 : errno) == EINTR) {
      }
    }
    if (error != 0) {
      ::close(fd);
      fail(path, "cannot lock the " + what, error);
    }
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd);
    fail(path, "cannot write", error);
  }
  return fd;
}

RunFolderLock::RunFolderLock(const std::filesystem::path& dir, const std::string& what) {
  std::filesystem::create_directories(dir);
  std::string holder;
  fd_ = lock_file_exclusively(dir / ".lock", what + "'s lock", holder);
  if (fd_ < 0)
    throw RunFolderBusy(what + " " + dir.string() + " is in use by another sinklab process" +
                        (holder.empty() ? std::string() : " (pid " + holder + ")") + "; wait for it to end or stop it");
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sinklab
