#pragma once
// Progress of a training run: a one-line bar redrawn in place on a terminal; plain periodic lines when
// stderr is not a terminal (logs, CI, sweeps). Both show the same numbers: step, loss, error, speed,
// ETA and the last evaluation on the fixed set.
#include <cstdint>
#include <cstdio>
#include <string>

namespace sinklab {

// The last evaluation on the fixed set, shown until the next one (evaluations are rarer than lines).
struct ProgressEvaluation {
  int64_t step = -1;  // -1: none yet in this process
  double loss = 0;
  double error = 0;  // max |pred - y|, or the share of wrong tokens for a token task
};

struct ProgressSnapshot {
  int64_t step = 0, max_steps = 0;
  double loss = 0, max_abs_error = 0;
  double steps_per_second = 0;  // 0: not measured yet
  bool token_error = false;     // max_abs_error (and evaluation.error) hold the share of wrong tokens
  ProgressEvaluation evaluation;
};

// The bar drawn on a terminal, clipped to columns - 1 characters (columns <= 0: not clipped).
std::string progress_bar_line(const ProgressSnapshot& s, int columns);

class ProgressReporter {
 public:
  ProgressReporter(std::FILE* out, bool quiet);
  void update(const ProgressSnapshot& s);
  void finish(const std::string& line);

 private:
  std::FILE* out_;
  bool quiet_;
  bool terminal_;
  bool drawn_ = false;
};

}  // namespace sinklab
