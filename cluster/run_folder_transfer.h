#pragma once
// A run folder as one byte string, for `compare --mpi --no-shared-fs`: a worker rank packs the run
// folder it trained into, rank 0 unpacks it under its own output folder. Rank 0 writes the files under
// a temporary folder name and renames the whole folder into place, so a run folder appears complete
// or not at all (summary.json, the "finished" mark, never arrives without the files it describes).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace sinklab::cluster {

class RunFolderTransferError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every regular file under `dir` (attention/ included) except the lock and temporary files, with its
// path relative to `dir`. Format: "SINKRUN1", u32 file count, then per file u32 path length, path,
// u64 size, bytes (little-endian). A missing folder packs as no files.
std::string pack_run_folder(const std::filesystem::path& dir);

// Replaces `final_dir` by the packed folder: unpacks into "<parent>/.<name>.incoming", takes the run
// folder lock on `final_dir` (RunFolderBusy when a `train` holds it) and swaps the folders by rename.
// Throws RunFolderTransferError for a malformed archive (a path leaving the folder, sizes beyond the
// data) and FileWriteError / RunFolderBusy naming the path when writing fails; `final_dir` is then
// unchanged.
void install_run_folder(const std::string& packed, const std::filesystem::path& final_dir);

}  // namespace sinklab::cluster
