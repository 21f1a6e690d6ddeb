#pragma once
// The one reader of a run's metrics.jsonl (one MetricsRecord per line, run_files/run_summary.h), used by
// report, compare's status line and Python's Run: read through core/io/file_read.h, so a FIFO, a device
// or a log over 1 GB is refused by name. read_metrics (declared in run_summary.h) reads a finished log;
// these read one still being written.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "run_files/run_summary.h"

namespace sinklab {

// Only the lines ended by a newline: a run still going may have written half of its last one. A bad
// complete line throws RunFileError naming the file and the line number, as read_metrics does. No log
// at all is no line: a run killed before it created its log (read_metrics refuses that as "no such file").
std::vector<MetricsRecord> read_complete_metrics(const std::filesystem::path& path);

// The "step" of the last complete line, reading only the log's last megabyte (a progress display of a
// run still being written); nothing when there is no such line, it has no integer step, or the file is
// no regular file: a run is never failed for its log.
std::optional<int64_t> last_logged_step(const std::filesystem::path& path);

}  // namespace sinklab
