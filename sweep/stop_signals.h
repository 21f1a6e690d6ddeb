#pragma once
// While alive, catches SIGINT, SIGTERM and SIGHUP instead of dying at once, so that the sweep can
// stop its children first: a killed `compare` must not leave orphan trainings writing into run
// folders that the next (resuming) invocation clears. The previous handlers come back on destruction.
#include <signal.h>

namespace sinklab::sweep {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received since construction, or 0.
  int received() const;

 private:
  struct sigaction previous_[3];
};

}  // namespace sinklab::sweep
