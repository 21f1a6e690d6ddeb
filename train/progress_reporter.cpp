#include "train/progress_reporter.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace sinklab {
namespace {

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, pattern, args...);
  return buf;
}

// Steps per second for fast runs; seconds per step below one step a second, where "0 steps/s" would
// say nothing (a language model at 10 s a step).
std::string rate_text(double steps_per_second) {
  if (!(steps_per_second > 0) || !std::isfinite(steps_per_second)) return "-- steps/s";
  if (steps_per_second >= 1) return format("%.0f steps/s", steps_per_second);
  return format("%.1f s/step", 1.0 / steps_per_second);
}

// h:mm:ss to max_steps at the current speed; "--:--:--" before the speed is measured.
std::string eta_text(const ProgressSnapshot& s) {
  if (!(s.steps_per_second > 0) || !std::isfinite(s.steps_per_second)) return "ETA --:--:--";
  const double left = static_cast<double>(std::max<int64_t>(s.max_steps - s.step - 1, 0)) / s.steps_per_second;
  const auto seconds = static_cast<long long>(std::llround(left));
  return format("ETA %lld:%02lld:%02lld", seconds / 3600, seconds / 60 % 60, seconds % 60);
}

std::string error_name(const ProgressSnapshot& s) { return s.token_error ? "token_err" : "max_err"; }

std::string numbers_text(const ProgressSnapshot& s) {
  std::string text = format("step %lld/%lld loss %.3e %s %.3e %s %s", static_cast<long long>(s.step),
                            static_cast<long long>(s.max_steps), s.loss, error_name(s).c_str(), s.max_abs_error,
                            rate_text(s.steps_per_second).c_str(), eta_text(s).c_str());
  if (s.evaluation.step >= 0)
    text += format(" | eval@%lld loss %.3e %s %.3e", static_cast<long long>(s.evaluation.step), s.evaluation.loss,
                   error_name(s).c_str(), s.evaluation.error);
  return text;
}

// The terminal's width in columns; 0 when unknown.
int terminal_columns(std::FILE* out) {
  winsize size{};
  return ioctl(fileno(out), TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

}  // namespace

std::string progress_bar_line(const ProgressSnapshot& s, int columns) {
  constexpr int kWidth = 24;
  const double frac = s.max_steps > 0 ? static_cast<double>(s.step) / static_cast<double>(s.max_steps) : 0.0;
  const int filled = std::clamp(static_cast<int>(std::lround(frac * kWidth)), 0, kWidth);
  std::string line = "[" + std::string(filled, '#') + std::string(kWidth - filled, ' ') + "] " + numbers_text(s);
  // A line longer than the terminal wraps, and "\r" then redraws only its last part: clip it instead.
  if (columns > 1 && line.size() >= static_cast<size_t>(columns)) line.resize(columns - 1);
  return line;
}

ProgressReporter::ProgressReporter(std::FILE* out, bool quiet)
    : out_(out), quiet_(quiet), terminal_(isatty(fileno(out)) != 0) {}

void ProgressReporter::update(const ProgressSnapshot& s) {
  if (quiet_) return;
  if (terminal_) {
    std::fprintf(out_, "\r%s\033[K", progress_bar_line(s, terminal_columns(out_)).c_str());
    drawn_ = true;
  } else {
    std::fprintf(out_, "%s\n", numbers_text(s).c_str());
  }
  std::fflush(out_);
}

void ProgressReporter::finish(const std::string& line) {
  if (quiet_) return;
  if (drawn_) std::fputs("\r\033[K", out_);
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace sinklab
