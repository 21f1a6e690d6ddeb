#pragma once
// Progress of a training run: a one-line bar redrawn in place on a terminal (step, loss, max error,
// steps/s, ETA); plain periodic lines when stderr is not a terminal (logs, CI, sweeps).
#include <cstdint>
#include <cstdio>
#include <string>

namespace sinklab {

struct ProgressSnapshot {
  int64_t step = 0, max_steps = 0;
  double loss = 0, max_abs_error = 0, steps_per_second = 0;
  bool token_error = false;  // max_abs_error holds the share of wrong tokens (a token task)
};

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
