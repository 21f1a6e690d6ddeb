#pragma once
// What a run directory records about where its numbers came from: git revision, library versions,
// compiler, the CPU and kernel path, threads, the command line and the start time (run.json).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sinklab {

std::string git_revision();  // "abc123def456", with "-dirty" for uncommitted changes, or "unknown"
nlohmann::json provenance(const std::vector<std::string>& command_line, int threads, uint64_t seed);
void write_provenance(const std::filesystem::path& run_dir, const nlohmann::json& info);
// The run.json at `path` (its one reader), bounded by core/io/file_read.h; RunFileError names the file
// when it is missing, no regular file, no JSON or no JSON object.
nlohmann::json read_provenance(const std::filesystem::path& path);

}  // namespace sinklab
