#include "core/io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sinklab {

std::string read_regular_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& what) {
  const std::string name = what + " " + path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileReadError(name + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw FileReadError(name + ": cannot stat: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw FileReadError(name + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode)) throw FileReadError(name + ": is not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes)
    throw FileReadError(name + ": is " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
                        " this file can hold");
  std::string bytes(size, '\0');
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileReadError(name + ": read failed: " + std::strerror(errno));
    if (n == 0) throw FileReadError(name + ": shrank while being read");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace sinklab
