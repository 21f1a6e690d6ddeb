#include "train/interrupt.h"

#include <csignal>
#include <mutex>

namespace sinklab {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int sig) { g_signal = sig; }

constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

// The installation every InterruptScope alive shares (train/interrupt.h).
std::mutex g_scopes_mutex;
int g_scopes = 0;
struct sigaction g_previous[3];

thread_local int t_signal_when_scope_ended = 0;

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) sigaction(sig, &action, nullptr);
}

bool interrupt_requested() { return g_signal != 0; }

int interrupt_signal() { return g_signal; }

int signal_when_scope_ended() { return t_signal_when_scope_ended; }

InterruptScope::InterruptScope() {
  const std::lock_guard lock(g_scopes_mutex);
  t_signal_when_scope_ended = 0;
  if (g_scopes++ > 0) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], nullptr, &g_previous[i]);
  g_signal = 0;
  install_interrupt_handlers();
}

InterruptScope::~InterruptScope() {
  const std::lock_guard lock(g_scopes_mutex);
  t_signal_when_scope_ended = g_signal;
  if (--g_scopes > 0) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

}  // namespace sinklab
