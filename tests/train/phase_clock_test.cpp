// PhaseClock: time goes to the phase of the innermost scope, a nested scope's time is not also charged
// to the scope around it, and the phases add up to the time since the start. A fake clock makes it exact.
#include <gtest/gtest.h>

#include <chrono>

#include "train/phase_clock.h"

namespace sinklab {
namespace {

PhaseClock::Clock::time_point g_now{};  // the fake clock's reading

PhaseClock::Clock::time_point fake_now() { return g_now; }
void advance(double seconds) {
  g_now += std::chrono::duration_cast<PhaseClock::Clock::duration>(std::chrono::duration<double>(seconds));
}

TEST(PhaseClock, NestedScopesChargeTheirOwnPhaseAndTheRestGoesToTheEnclosingOne) {
  g_now = PhaseClock::Clock::time_point{};
  PhaseClock clock(g_now, &fake_now);
  advance(2);  // setup
  {
    const auto steps = clock.in(&RunTimes::steps);
    advance(3);
    {
      const auto evaluation = clock.in(&RunTimes::evaluations);
      advance(5);
      {
        const auto analysis = clock.in(&RunTimes::analysis);
        advance(7);
      }
      advance(11);
    }
    {
      const auto writing = clock.in(&RunTimes::writing);
      advance(13);
    }
    advance(17);
  }
  advance(19);  // back in setup
  const RunTimes t = clock.times();
  EXPECT_DOUBLE_EQ(t.setup, 2 + 19);
  EXPECT_DOUBLE_EQ(t.steps, 3 + 17);
  EXPECT_DOUBLE_EQ(t.evaluations, 5 + 11);
  EXPECT_DOUBLE_EQ(t.analysis, 7);
  EXPECT_DOUBLE_EQ(t.writing, 13);
  EXPECT_DOUBLE_EQ(t.total(), 2 + 3 + 5 + 7 + 11 + 13 + 17 + 19);
}

TEST(PhaseClock, ReadingTheTimesChargesTheCurrentPhaseOnce) {
  g_now = PhaseClock::Clock::time_point{};
  PhaseClock clock(g_now, &fake_now);
  const auto writing = clock.in(&RunTimes::writing);
  advance(4);
  EXPECT_DOUBLE_EQ(clock.times().writing, 4);
  advance(1);
  EXPECT_DOUBLE_EQ(clock.times().writing, 5);  // not 4 + 5
  EXPECT_DOUBLE_EQ(clock.times().setup, 0);
}

}  // namespace
}  // namespace sinklab
