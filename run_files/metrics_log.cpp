#include "run_files/metrics_log.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/io/file_read.h"
#include "run_files/json_fields.h"

namespace sinklab {

namespace {

// One line per logged step: far above the few MB of a paper run's log, and never /dev/zero.
constexpr uint64_t kMaxMetricsBytes = uint64_t{1} << 30;
// The end of the log last_logged_step reads: a line is far shorter (a few kB per head).
constexpr uint64_t kMaxMetricsTailBytes = uint64_t{1} << 20;

// One line of metrics.jsonl as a record; `where` (file:line) starts every error.
MetricsRecord parse_metrics_line(const std::string& line, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw RunFileError(where + ": invalid JSON: " + e.what());
  }
  try {
    return j.get<MetricsRecord>();
  } catch (const JsonFieldError& e) {
    throw RunFileError(where + ": " + e.what());
  }
}

std::string read_metrics_text(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw RunFileError(path.string() + ": no such file");
  try {
    return read_regular_file(path, kMaxMetricsBytes, "metrics log");
  } catch (const FileReadError& e) {
    throw RunFileError(e.what());
  }
}

// The records of the first `lines` lines (all when nothing), of complete lines only when `complete_only`.
std::vector<MetricsRecord> read_metrics_lines(const std::filesystem::path& path, std::optional<uint64_t> lines,
                                              bool complete_only) {
  std::string text = read_metrics_text(path);
  if (complete_only) text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  std::istringstream in(std::move(text));
  std::vector<MetricsRecord> records;
  std::string line;
  int64_t number = 1;
  for (; (!lines || static_cast<uint64_t>(number) <= *lines) && std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    records.push_back(parse_metrics_line(line, path.string() + ":" + std::to_string(number)));
  }
  if (lines && static_cast<uint64_t>(number - 1) < *lines)
    throw RunFileError(path.string() + ": has only " + std::to_string(number - 1) + " of the " +
                       std::to_string(*lines) + " lines to read");
  return records;
}

}  // namespace

std::vector<MetricsRecord> read_metrics(const std::filesystem::path& path) {
  return read_metrics_lines(path, std::nullopt, false);
}

std::vector<MetricsRecord> read_metrics(const std::filesystem::path& path, uint64_t lines) {
  return read_metrics_lines(path, lines, false);
}

std::vector<MetricsRecord> read_complete_metrics(const std::filesystem::path& path) {
  // A run stopped between writing its config and creating its log has logged nothing yet.
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return {};
  return read_metrics_lines(path, std::nullopt, true);
}

std::optional<int64_t> last_logged_step(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::string tail;
  try {
    const uint64_t size = regular_file_size(path, "metrics log");
    const uint64_t window = std::min<uint64_t>(size, kMaxMetricsTailBytes);
    tail = read_file_range(path, size - window, window, "metrics log");
  } catch (const FileReadError&) {
    return std::nullopt;  // a FIFO, a device or a file that shrank: no step to show
  }
  const auto end = tail.rfind('\n');  // what follows is a line still being written
  if (end == std::string::npos) return std::nullopt;
  tail.resize(end);
  const auto begin = tail.rfind('\n');
  const std::string line = begin == std::string::npos ? tail : tail.substr(begin + 1);
  const nlohmann::json record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object()) return std::nullopt;
  try {
    return json_fields::get_int(record, "step", "");
  } catch (const JsonFieldError&) {
    return std::nullopt;
  }
}

}  // namespace sinklab
