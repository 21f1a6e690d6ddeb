#pragma once
// Charges a run's wall time to its phases (run_files/run_times.h) as the trainer moves between them. A
// scope switches the current phase and switches back when it ends, so phases nest without counting any
// time twice: a checkpoint written inside the step loop is writing, not steps. Reading the clock is one
// steady_clock call per switch: nothing is allocated.
#include <chrono>

#include "run_files/run_times.h"

namespace sinklab {

class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;
  using Phase = double RunTimes::*;

  using Now = Clock::time_point (*)();
  // The clock runs from `started` in the setup phase; `now` reads the time (tests give their own).
  explicit PhaseClock(Clock::time_point started, Now now = &Clock::now) : now_(now), last_(started) {}

  class Scope {
   public:
    Scope(PhaseClock& clock, Phase phase) : clock_(clock), previous_(clock.switch_to(phase)) {}
    ~Scope() { clock_.switch_to(previous_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseClock& clock_;
    Phase previous_;
  };
  // Time from here to the scope's end goes to `phase` (less what nested scopes charge elsewhere).
  [[nodiscard]] Scope in(Phase phase) { return Scope(*this, phase); }

  // The phases so far, the current one charged up to now.
  RunTimes times() {
    switch_to(current_);
    return times_;
  }

 private:
  // Charges the time since the last switch to the current phase; returns it and makes `phase` current.
  Phase switch_to(Phase phase) {
    const Clock::time_point now = now_();
    times_.*current_ += std::chrono::duration<double>(now - last_).count();
    last_ = now;
    const Phase previous = current_;
    current_ = phase;
    return previous;
  }

  Now now_;
  RunTimes times_;
  Phase current_ = &RunTimes::setup;
  Clock::time_point last_;
};

}  // namespace sinklab
