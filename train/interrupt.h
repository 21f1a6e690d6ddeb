#pragma once
// Ctrl-C / SIGTERM during training: the handler only sets a flag; the training loop finishes its
// current step, writes a checkpoint and returns, so an interrupted run loses nothing and can be
// continued with --resume.
namespace sinklab {

void install_interrupt_handlers();  // SIGINT, SIGTERM, SIGHUP
bool interrupt_requested();
int interrupt_signal();             // the signal that asked, 0 when none

}  // namespace sinklab
