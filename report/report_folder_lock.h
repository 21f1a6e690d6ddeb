#pragma once
// One report at a time per output folder. A report writes many files that belong together (index.html
// names the figures, the explorer's page its map scripts, which it clears and writes again), so two
// reports into one folder at once take turns: each holds an exclusive flock on <folder>/.report.lock while
// it writes, and the second waits for the first, saying so once on the log. Both end with exit 0 and the
// folder is the complete report of the one that wrote last. The kernel drops the lock when its holder
// dies, however it dies.
#include <filesystem>
#include <ostream>

namespace sinklab {

class ReportFolderLock {
 public:
  // Creates `dir` if needed; waits while another process holds the lock. Throws FileWriteError
  // (core/io/file_write.h) naming the lock file when it cannot be opened or locked (not a regular file,
  // a file system without locks).
  ReportFolderLock(const std::filesystem::path& dir, std::ostream& log);
  ~ReportFolderLock();
  ReportFolderLock(const ReportFolderLock&) = delete;
  ReportFolderLock& operator=(const ReportFolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace sinklab
