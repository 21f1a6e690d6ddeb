#pragma once
// What a run folder holds, and the rules for writing into one: `train` starts only in a folder
// without a run, continues an unfinished one only with --resume, and starts over only with --force.
// Only the files a run writes are ever removed; anything else in the folder is left alone.
#include <filesystem>
#include <string>

namespace sinklab {

enum class RunFolderState {
  empty,       // missing, or holds no run file
  unfinished,  // run files but no summary.json: killed, interrupted or failed
  finished,    // summary.json (finished, or diverged)
};

RunFolderState inspect_run_folder(const std::filesystem::path& dir);

// Removes the run files (summary.json first, so a crash midway never leaves a "finished" run).
void clear_run_files(const std::filesystem::path& dir);

}  // namespace sinklab
