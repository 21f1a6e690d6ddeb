#pragma once
// One writer per run folder: `train` holds an exclusive flock on RUN_DIR/.lock for as long as it runs,
// and `compare` one on SWEEP_DIR/.lock, so a second `train` or `compare` into the same folder is
// refused instead of mixing two runs. The kernel drops the lock when the process dies, however it dies.
#include <filesystem>
#include <stdexcept>
#include <string>

namespace sinklab {

class RunFolderBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunFolderLock {
 public:
  // Creates dir if needed. Throws RunFolderBusy naming the folder (as `what`: "run folder", "sweep
  // folder") and the holder's pid when locked.
  explicit RunFolderLock(const std::filesystem::path& dir, const std::string& what = "run folder");
  ~RunFolderLock();
  RunFolderLock(const RunFolderLock&) = delete;
  RunFolderLock& operator=(const RunFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace sinklab
