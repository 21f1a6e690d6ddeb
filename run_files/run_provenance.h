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
// A run trained in pieces names every build that trained it: appends to the run.json in `run_dir` one entry
// of its "resumed" list (the step the piece starts from, and `now`'s git revision, kernel path, threads,
// host, command line and start time; `now` as provenance() gives it). Returns a note for the user when the
// git revision or kernel path differs from the run's start (the pieces then are not bit for bit one run),
// else "". RunFileError when run.json is unreadable or its "resumed" is no list.
std::string record_resumption(const std::filesystem::path& run_dir, int64_t from_step, const nlohmann::json& now);
// The step the last piece of a run started from: 0 for a run trained in one piece, else the largest
// "from_step" of the "resumed" list of `info` (read_provenance of `path`). summary.json's wall_seconds
// times that piece only. RunFileError naming `path` when "resumed" is no list of entries with a step.
int64_t last_piece_start(const nlohmann::json& info, const std::filesystem::path& path);

}  // namespace sinklab
