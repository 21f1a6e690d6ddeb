// InterruptScope: trainings that overlap in time (sinklab.train from two Python threads) share one
// installation of the handlers, so the handlers that were there before come back after the last of them,
// whatever order they end in, and a signal during the overlap stops both.
#include <gtest/gtest.h>

#include <signal.h>

#include <csignal>
#include <optional>
#include <thread>

#include "train/interrupt.h"

namespace sinklab {
namespace {

volatile std::sig_atomic_t g_own_handler_calls = 0;
extern "C" void own_handler(int) { g_own_handler_calls = g_own_handler_calls + 1; }

// The program's own SIGINT handler (Python's, in sinklab.train) for the length of a test.
class OwnSigintHandler {
 public:
  OwnSigintHandler() {
    struct sigaction action {};
    action.sa_handler = own_handler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &saved_);
    g_own_handler_calls = 0;
  }
  ~OwnSigintHandler() { sigaction(SIGINT, &saved_, nullptr); }
  OwnSigintHandler(const OwnSigintHandler&) = delete;
  OwnSigintHandler& operator=(const OwnSigintHandler&) = delete;

 private:
  struct sigaction saved_ {};
};

void (*current_sigint_handler())(int) {
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  return now.sa_handler;
}

TEST(InterruptScope, OverlappingScopesThatEndFirstInFirstOutPutTheOriginalHandlerBack) {
  const OwnSigintHandler own;
  std::optional<InterruptScope> first(std::in_place);
  std::optional<InterruptScope> second(std::in_place);
  EXPECT_NE(current_sigint_handler(), own_handler) << "the training's handler is in place";
  first.reset();
  EXPECT_NE(current_sigint_handler(), own_handler) << "the second training is still running";
  second.reset();
  EXPECT_EQ(current_sigint_handler(), own_handler);
  std::raise(SIGINT);
  EXPECT_EQ(g_own_handler_calls, 1) << "Ctrl-C reaches the program's own handler again";
}

TEST(InterruptScope, ASignalDuringTheOverlapStopsBothTrainingsAndEachOneSeesIt) {
  const OwnSigintHandler own;
  int seen_by_other_thread = -1;
  bool other_thread_asked_to_stop = false;
  std::optional<InterruptScope> first(std::in_place);
  std::thread second([&] {
    const std::optional<InterruptScope> scope(std::in_place);
    std::raise(SIGINT);
    other_thread_asked_to_stop = interrupt_requested();
  });
  second.join();
  EXPECT_TRUE(other_thread_asked_to_stop);
  EXPECT_TRUE(interrupt_requested()) << "the first training is asked to stop too";
  EXPECT_EQ(interrupt_signal(), SIGINT);
  first.reset();
  EXPECT_EQ(signal_when_scope_ended(), SIGINT);
  std::thread([&] { seen_by_other_thread = signal_when_scope_ended(); }).join();
  EXPECT_EQ(seen_by_other_thread, 0) << "a thread that had no scope was not stopped";
  EXPECT_EQ(g_own_handler_calls, 0) << "the training's handler took the signal, not the program's";
  EXPECT_EQ(current_sigint_handler(), own_handler);
}

TEST(InterruptScope, TheFirstScopeOfANewTrainingClearsTheFlagAndTheThreadsLastScopeKeepsItsSignal) {
  const OwnSigintHandler own;
  {
    const InterruptScope scope;
    std::raise(SIGTERM);
  }
  EXPECT_EQ(signal_when_scope_ended(), SIGTERM);
  std::thread([] { const InterruptScope later; }).join();
  EXPECT_FALSE(interrupt_requested()) << "a training that begins after the last one ended starts afresh";
  EXPECT_EQ(signal_when_scope_ended(), SIGTERM) << "another thread's scope does not change this thread's answer";
}

}  // namespace
}  // namespace sinklab
