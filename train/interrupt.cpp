#include "train/interrupt.h"

#include <csignal>
#include <initializer_list>

namespace sinklab {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) { g_signal = sig; }

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

bool interrupt_requested() { return g_signal != 0; }

int interrupt_signal() { return g_signal; }

}  // namespace sinklab
