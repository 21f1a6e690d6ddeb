#pragma once
// The JSON bodies of the `run` and `result` messages (cluster/mpi_channel.h).
#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace sinklab::cluster {

// One run to train, everything a worker needs without reading the sweep file.
struct RunAssignment {
  std::size_t index = 0;  // into rank 0's planned runs
  std::string id;
  std::filesystem::path config;  // absolute
  std::vector<std::pair<std::string, std::string>> overrides;  // `--set key=value`, in order
  std::filesystem::path dir;         // the run folder on rank 0's (shared) filesystem, absolute
  std::string sweep_key;             // names the sweep's folder in a worker's scratch space
};

// How it ended, seen from the worker.
struct RunResult {
  std::size_t index = 0;
  bool signaled = false;  // the child's ExitStatus
  int code = 0;
  double seconds = 0.0;   // wall time on the worker
  bool resumed = false;   // continued from its checkpoint
  std::string error;      // non-empty: the worker could not start the run (why)
  // Damaged run files the worker moved aside before the run (sweep::quarantine_damaged_run_files):
  // what was wrong, and where each went on the worker's filesystem.
  std::vector<std::pair<std::string, std::string>> quarantined;
};

std::string encode(const RunAssignment& run);
std::string encode(const RunResult& result);
// Throw std::runtime_error naming the field for a malformed body.
RunAssignment decode_assignment(const std::string& json);
RunResult decode_result(const std::string& json);

}  // namespace sinklab::cluster
