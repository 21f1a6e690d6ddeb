#pragma once
// Checked file writes. Every file a run or a report writes goes through here, so that a full disk,
// a read-only folder or a symlink planted under a final name ends the command with one message
// naming the path and the OS error, and never leaves a partial file under its final name.
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sinklab {

class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What stands at `path` when it is neither missing nor a regular file, never following a symlink there:
// "a folder", "a symbolic link", "a FIFO", "a character device", "a block device", "a socket"; else "".
std::string non_regular_file_at(const std::filesystem::path& path);
// Throws FileWriteError naming `path` when a device, FIFO, socket or folder stands there: such a node is
// never renamed over or unlinked (as root, rename replaces /dev/full as readily as a file). A regular
// file or a symlink there may be replaced. For writers that rename a file they did not write themselves.
void refuse_to_replace(const std::filesystem::path& path);

// A temporary name's suffix, unique to this call: ".<pid>-<8 hex digits>.tmp". Every writer appends one to
// the final name it writes ("summary.json.4711-9f3a0c2e.tmp"), so two writers of one path, in two processes
// or two threads, never share a temporary file; the ".tmp" ending keeps every reader away from it.
std::string unique_temporary_suffix();
// The final name that `name` (a file name, no folder) is a temporary of: "x.json" for "x.json.4711-9f3a0c2e.tmp"
// and for "x.json.tmp" (the one shared name earlier versions used); "" when it is no temporary.
std::string final_name_of_temporary(std::string_view name);

// Writes bytes to a temporary name of this call's own ("<path>.<pid>-<random>.tmp", created exclusively, so
// nothing already there is ever opened, followed or replaced), fsyncs it and renames it over path. Two
// writers of one path at once both succeed and path ends up as one writer's complete bytes. A symlink at
// path itself is replaced, never followed. A device, FIFO, socket or folder at path is never replaced:
// FileWriteError names it. On any failure the temporary file is removed and FileWriteError names the path
// and the OS error. A writer killed midway leaves its temporary behind; nothing reads it (run folders:
// `train --force` removes it, run_files/run_folder.h).
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);
// The same for the pieces one after another, written without joining them first (a checkpoint's
// weights and moments, gigabytes at GPT-2 size, are written from where they are).
void write_file_atomically(const std::filesystem::path& path, std::span<const std::string_view> pieces);

// An append-only log (metrics.jsonl). Opening refuses a symlink and any other non-regular file; every
// append is written whole and checked (a failed one is cut off again, so the log keeps whole records);
// sync() makes everything appended so far durable.
class AppendFile {
 public:
  // Truncates the file to keep_bytes first (a resumed run drops lines written after its checkpoint);
  // keep_bytes = 0 starts it empty. Creates the file if it is missing.
  AppendFile(const std::filesystem::path& path, uint64_t keep_bytes);
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;
  ~AppendFile();

  void append(std::string_view bytes);
  void sync();
  uint64_t size() const { return size_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace sinklab
