#include "report/report_folder_lock.h"

#include <unistd.h>

#include <string>

#include "run_files/run_folder_lock.h"

namespace sinklab {

ReportFolderLock::ReportFolderLock(const std::filesystem::path& dir, std::ostream& log) {
  std::filesystem::create_directories(dir);
  std::string holder;
  fd_ = lock_file_exclusively(dir / ".report.lock", "report folder's lock", holder, [&](const std::string& pid) {
    log << "report: waiting for another sinklab report into " << dir.string()
        << (pid.empty() ? std::string() : " (pid " + pid + ")") << " to finish\n"
        << std::flush;
  });
}

ReportFolderLock::~ReportFolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sinklab
