#pragma once
// Ctrl-C / SIGTERM during training: the handler only sets a flag; the training loop finishes its
// current step, writes a checkpoint and returns, so an interrupted run loses nothing and can be
// continued with --resume.
#include <signal.h>

namespace sinklab {

void install_interrupt_handlers();  // SIGINT, SIGTERM, SIGHUP
bool interrupt_requested();
int interrupt_signal();             // the signal that asked, 0 when none

// The handlers for the trainings of a process that goes on afterwards (sinklab.train in Python, from one
// thread or several). Every scope alive shares one installation, counted under a mutex: the first scope to
// begin saves the handlers that were there (Python's own) and clears the flag, the last to end puts those
// handlers back. So trainings that overlap in time may end in any order and Python's handlers are back after
// the last one (a scope that saved and restored on its own would put back another scope's handlers). The
// flag is one for the process: a signal asks every training in progress to stop, and one that begins before
// the last of them has ended too (it sees the flag at its first step). interrupt_signal() still says after
// the last scope which signal asked; signal_when_scope_ended() says it for the calling thread's last scope.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The signal that had asked when the calling thread's last InterruptScope ended (0 when none, or while a
// scope of the thread is alive): unlike interrupt_signal(), a scope that another thread begins afterwards
// does not clear it.
int signal_when_scope_ended();

}  // namespace sinklab
