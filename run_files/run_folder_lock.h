#pragma once
// One writer per run folder: `train` holds an exclusive flock on RUN_DIR/.lock for as long as it runs,
// and `compare` one on SWEEP_DIR/.lock, so a second `train` or `compare` into the same folder is
// refused instead of mixing two runs. The kernel drops the lock when the process dies, however it dies.
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace sinklab {

class RunFolderBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The exclusive flock every folder lock rests on (this one, report/report_folder_lock.h). Opens
// `lock_file` (created if missing; never a FIFO, device or symlink: FileWriteError naming it, `what` saying
// whose lock it is) and locks it. When another process holds it: without `on_wait`, returns -1 and puts
// the holder's pid (as it wrote it, maybe "") in `holder`; with it, calls on_wait(holder) once and waits.
// Once locked, writes this process's pid into the file (informational: the flock is what counts) and
// returns the descriptor, to be closed to unlock. The kernel drops the lock when its holder dies.
int lock_file_exclusively(const std::filesystem::path& lock_file, const std::string& what, std::string& holder,
                          const std::function<void(const std::string& holder)>& on_wait = nullptr);

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
