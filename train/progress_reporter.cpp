#include "train/progress_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace sinklab {

ProgressReporter::ProgressReporter(std::FILE* out, bool quiet)
    : out_(out), quiet_(quiet), terminal_(isatty(fileno(out)) != 0) {}

void ProgressReporter::update(const ProgressSnapshot& s) {
  if (quiet_) return;
  const double eta = s.steps_per_second > 0 ? static_cast<double>(s.max_steps - s.step) / s.steps_per_second : 0.0;
  const double frac = s.max_steps > 0 ? static_cast<double>(s.step) / static_cast<double>(s.max_steps) : 0.0;
  if (terminal_) {
    constexpr int kWidth = 24;
    const int filled = std::clamp(static_cast<int>(std::lround(frac * kWidth)), 0, kWidth);
    std::fprintf(out_, "\r[%.*s%*s] step %lld/%lld  loss %.3e  %s %.3e  %.0f steps/s  ETA<=%.0fs\033[K",
                 filled, "########################", kWidth - filled, "", static_cast<long long>(s.step),
                 static_cast<long long>(s.max_steps), s.loss, s.token_error ? "token err" : "max err", s.max_abs_error,
                 s.steps_per_second, eta);
    drawn_ = true;
  } else {
    std::fprintf(out_, "step %lld/%lld loss %.3e %s %.3e %.0f steps/s\n", static_cast<long long>(s.step),
                 static_cast<long long>(s.max_steps), s.loss, s.token_error ? "token_err" : "max_err", s.max_abs_error,
                 s.steps_per_second);
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
