#pragma once
// The one rule for every path a command writes because the user chose it (--out, Python's out=), and for
// the folders a command creates inside such a path (report/figures/): checked before anything is written.
// An output never
//  - replaces or goes inside a file a run owns (run_files/run_folder.h: is_run_owned_name) in any run
//    folder, whatever the spelling of the path (relative, "..", symlinked folders on the way);
//  - replaces a device, FIFO or socket (sinklab writes outputs only to regular files and real folders);
//  - goes through a symlinked folder inside a run folder, or inside the output folder the command writes.
// A symlink as the final name of a file output is replaced, never followed (core/io/file_write.h).
#include <filesystem>
#include <string_view>

#include "core/io/file_write.h"

namespace sinklab {

// A refused output; a FileWriteError, so commands exit 2 and Python raises sinklab.FileError.
class OutputPathError : public FileWriteError {
 public:
  using FileWriteError::FileWriteError;
};

enum class OutputKind {
  file,    // written whole by write_file_atomically
  folder,  // created if missing, then written into
};

// Throws OutputPathError, its message starting with `what` (the flag, e.g. "--out") and naming the path
// and the reason, when `path` breaks the rule above. `within`: the output folder the command writes a
// tree into (already checked itself); no folder below it on the way to `path` may be a symlink.
void check_output_path(const std::filesystem::path& path, OutputKind kind, std::string_view what,
                       const std::filesystem::path& within = {});

}  // namespace sinklab
