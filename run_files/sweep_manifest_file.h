#pragma once
// The one reader of a sweep folder's sweep.json (written by sweep/sweep_manifest.h): compare reads it back
// on resume, report lists the runs from it, Python's Sweep is it. Here, below sweep/ and report/, so that
// both use it.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "run_files/run_summary.h"  // RunFileError, kMaxSweepManifestBytes

namespace sinklab {

class SweepManifestError : public RunFileError {
 public:
  using RunFileError::RunFileError;
};

// The file at `path`, read through core/io/file_read.h (a FIFO, a device or a missing file is refused by
// name) and every field its readers use type-checked: name, title, set, and each run's id, variant, dir and
// seed (an integer or null), and when present its config, class, predicted and overrides (an object).
// Errors name the file and the field.
nlohmann::json read_sweep_manifest_file(const std::filesystem::path& path);

}  // namespace sinklab
