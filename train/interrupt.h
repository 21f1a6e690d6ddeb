#pragma once
// Ctrl-C / SIGTERM during training: the handler only sets a flag; the training loop finishes its
// current step, writes a checkpoint and returns, so an interrupted run loses nothing and can be
// continued with --resume.
#include <signal.h>

namespace sinklab {

void install_interrupt_handlers();  // SIGINT, SIGTERM, SIGHUP
bool interrupt_requested();
int interrupt_signal();             // the signal that asked, 0 when none

// The handlers for one training in a process that goes on afterwards (sinklab.train in Python): clears
// the flag and installs the handlers; destruction puts back the handlers that were there before (Python's
// own SIGINT handler). interrupt_signal() still says after destruction which signal asked.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction previous_[3];
};

}  // namespace sinklab
