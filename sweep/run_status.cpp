#include "sweep/run_status.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "run_files/metrics_log.h"

namespace sinklab::sweep {
namespace {

namespace fs = std::filesystem;

std::string duration_text(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char buffer[48];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", s / 3600, s % 3600 / 60);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%llds", s);
  }
  return buffer;
}

}  // namespace

std::optional<long long> logged_step(const fs::path& run_dir) {
  return last_logged_step(run_dir / "metrics.jsonl");
}

std::optional<double> seconds_left(long long step_then, std::chrono::steady_clock::time_point then, long long step_now,
                                   std::chrono::steady_clock::time_point now, int max_steps) {
  if (step_now <= step_then || max_steps <= 0) return std::nullopt;
  const double seconds_per_step = std::chrono::duration<double>(now - then).count() / double(step_now - step_then);
  return seconds_per_step * double(std::max<long long>(0, max_steps - step_now));
}

std::string format_status_line(const std::vector<RunningRun>& running, std::size_t finished, std::size_t total) {
  std::string line = std::to_string(finished) + "/" + std::to_string(total) + " finished";
  if (running.empty()) return line;
  line += "; running:";
  for (std::size_t i = 0; i < running.size(); ++i) {
    const RunningRun& r = running[i];
    line += (i == 0 ? " " : ", ") + r.id;
    if (!r.step) {
      line += " starting";
      continue;
    }
    line += " step " + std::to_string(*r.step);
    if (r.max_steps > 0) line += "/" + std::to_string(r.max_steps);
    if (r.seconds_left) line += " ETA " + duration_text(*r.seconds_left);
  }
  return line;
}

}  // namespace sinklab::sweep
