#pragma once
// Damaged files inside a sweep's run folders: a run whose checkpoint.bin cannot be read (a disk error,
// a partial copy) would fail on every `compare`. Such a file is moved aside, to the sweep folder's
// quarantine/, where the report names it, and the run starts over once.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sinklab {

// SWEEP_DIR/quarantine.
std::filesystem::path quarantine_dir(const std::filesystem::path& sweep_dir);

struct QuarantinedFile {
  std::string run_id;
  std::string damage;               // what is wrong with it
  std::filesystem::path moved_to;  // QUARANTINE/<run id>.<file name>, or .2, .3 ... when taken
};

// Renames `file` into `quarantine` (created) as <run id>.<its name> and returns the new path. Throws
// std::runtime_error naming both paths when it cannot.
std::filesystem::path move_to_quarantine(const std::filesystem::path& file, const std::string& run_id,
                                         const std::filesystem::path& quarantine);

// When RUN_DIR/checkpoint.bin is a regular file that checkpoint_damage (run_files/checkpoint_file.h)
// finds unusable, moves it into `quarantine` and says what it did; nullopt for an intact checkpoint or none.
std::optional<QuarantinedFile> quarantine_damaged_checkpoint(const std::filesystem::path& run_dir,
                                                             const std::string& run_id,
                                                             const std::filesystem::path& quarantine);

// The files in SWEEP_DIR/quarantine, sorted by name; none when the folder is missing.
std::vector<std::filesystem::path> quarantined_files(const std::filesystem::path& sweep_dir);

}  // namespace sinklab
