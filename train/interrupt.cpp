#include "train/interrupt.h"

#include <csignal>

namespace sinklab {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) { g_signal = sig; }

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) sigaction(sig, &action, nullptr);
}

bool interrupt_requested() { return g_signal != 0; }

int interrupt_signal() { return g_signal; }

InterruptScope::InterruptScope() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], nullptr, &previous_[i]);
  g_signal = 0;
  install_interrupt_handlers();
}

InterruptScope::~InterruptScope() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

}  // namespace sinklab
