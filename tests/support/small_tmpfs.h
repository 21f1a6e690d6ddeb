#pragma once
// A tiny tmpfs mounted for one test, to make a real "No space left on device" (ENOSPC). Mounting needs
// root (CI runs as root); elsewhere mounted() is false and the test skips itself, saying why.
#include <sys/mount.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sinklab::testing {

class SmallTmpfs {
 public:
  explicit SmallTmpfs(size_t bytes) {
    char pattern[] = "/tmp/sinklab-tmpfs-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) return;
    dir_ = pattern;
    const std::string options = "size=" + std::to_string(bytes);
    mounted_ = ::geteuid() == 0 && ::mount("tmpfs", pattern, "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount(dir_.c_str());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;

  bool mounted() const { return mounted_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
};

}  // namespace sinklab::testing
