#include "apps/user_error.h"

#include <cstdio>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "config_loading/config_error.h"
#include "core/io/file_read.h"
#include "core/io/file_write.h"
#include "data/task.h"
#include "run_files/run_summary.h"
#include "run_files/checkpoint.h"
#include "run_files/run_folder_lock.h"

namespace sinklab::apps {

int report_exception(const std::exception& e) {
  const bool user_error = dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const CheckpointError*>(&e) ||
                          dynamic_cast<const RunFileError*>(&e) || dynamic_cast<const std::invalid_argument*>(&e) ||
                          dynamic_cast<const std::filesystem::filesystem_error*>(&e) ||
                          dynamic_cast<const FileWriteError*>(&e) || dynamic_cast<const FileReadError*>(&e) ||
                          dynamic_cast<const RunFolderBusy*>(&e) || dynamic_cast<const TaskError*>(&e);
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    // A size no estimate or reader caught: still one message, never an abort.
    std::fprintf(stderr, "sinklab: error: out of memory (%s): the command needed more memory than this machine "
                         "has left; smaller inputs, configs or --samples need less\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "sinklab: error: %s\n", e.what());
  return user_error ? 2 : 1;
}

}  // namespace sinklab::apps
