#pragma once
// What a run folder holds, and the rules for writing into one: `train` starts only in a folder
// without a run, continues an unfinished one only with --resume, and starts over only with --force.
// Only the files a run writes are ever removed; anything else in the folder is left alone.
#include <filesystem>
#include <string>
#include <string_view>

namespace sinklab {

enum class RunFolderState {
  empty,       // missing, or holds no run file
  unfinished,  // run files but no summary.json: killed, interrupted or failed
  finished,    // summary.json (finished, or diverged)
};

RunFolderState inspect_run_folder(const std::filesystem::path& dir);

// Refuses (OutputPathError, run_files/output_path.h) a `dir` no output may be, then (std::invalid_argument
// naming `--out DIR`) to write a new run into `dir` when that would
// overwrite the config file being read (`source_config`) with another text than `resolved_config`, or,
// without `force`, when `dir` holds a run; `unfinished_hint` ends the message for an unfinished one
// (what the user can do instead).
void check_new_run_folder(const std::filesystem::path& dir, const std::filesystem::path& source_config,
                          const std::string& resolved_config, bool force, const std::string& unfinished_hint);

// True when `name` (a file or folder directly in a run folder) is one a run writes, or a temporary of one
// (core/io/file_write.h: final_name_of_temporary):
// summary.json, checkpoint.bin, metrics.jsonl, run.json, config.yaml, attention/, attention_snapshots.npz,
// train.log, .lock. No output may replace them or write inside them (run_files/output_path.h).
bool is_run_owned_name(std::string_view name);

// Removes the temporaries of run files (core/io/file_write.h) that writers killed midway left in `dir` and
// in its attention/ folder: a checkpoint's can be gigabytes. Only for the holder of the run folder's lock
// (run_files/run_folder_lock.h), which no other writer of run files can be.
void remove_run_file_temporaries(const std::filesystem::path& dir);

// Removes the run files (summary.json first, so a crash midway never leaves a "finished" run) and the
// temporaries of them that killed writers left, then
// the eval/, export/ and report/ folders those commands write into a run by default. Kept: train.log
// (compare writes it around a `train --force` child) and .lock (held by the caller).
void clear_run_files(const std::filesystem::path& dir);

}  // namespace sinklab
