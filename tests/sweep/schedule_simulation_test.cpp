#include "sweep/schedule_simulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace sinklab::sweep {
namespace {

TEST(ScheduleSimulation, EachRunGoesToTheWorkerFreeFirst) {
  // Two workers, longest first: A 5 | B 3, 3 (ends 6) | A 2 (ends 7) | B 2 (ends 8) | A 1 (ends 8).
  const auto s = simulate_schedule({5, 3, 3, 2, 2, 1}, {0, 1, 2, 3, 4, 5}, 2);
  EXPECT_EQ(s.workers, 2);
  EXPECT_DOUBLE_EQ(s.total_seconds, 16);
  EXPECT_DOUBLE_EQ(s.ideal_seconds, 8);
  EXPECT_DOUBLE_EQ(s.longest_seconds, 5);
  EXPECT_DOUBLE_EQ(s.makespan_seconds, 8);
}

TEST(ScheduleSimulation, TheOrderMatters) {
  // Shortest first on two workers leaves the long run for last: 1,1 | 1,1 | then 4 on one worker.
  const std::vector<double> t{4, 1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(simulate_schedule(t, {0, 1, 2, 3, 4}, 2).makespan_seconds, 4);
  EXPECT_DOUBLE_EQ(simulate_schedule(t, {1, 2, 3, 4, 0}, 2).makespan_seconds, 6);
}

TEST(ScheduleSimulation, OneWorkerTakesTheTotalAndManyTakeTheLongestRun) {
  const std::vector<double> t{2.5, 1, 7, 0.5};
  const std::vector<std::size_t> order{2, 0, 1, 3};
  EXPECT_DOUBLE_EQ(simulate_schedule(t, order, 1).makespan_seconds, 11);
  EXPECT_DOUBLE_EQ(simulate_schedule(t, order, 512).makespan_seconds, 7);
  EXPECT_DOUBLE_EQ(simulate_schedule(t, order, 512).ideal_seconds, 11.0 / 512);
}

TEST(ScheduleSimulation, RefusesNoWorkersABadOrderAndBadTimes) {
  EXPECT_THROW(simulate_schedule({1}, {0}, 0), std::invalid_argument);
  EXPECT_THROW(simulate_schedule({1, 2}, {0, 0}, 1), std::invalid_argument);
  EXPECT_THROW(simulate_schedule({1, 2}, {0}, 1), std::invalid_argument);
  EXPECT_THROW(simulate_schedule({1, 2}, {0, 2}, 1), std::invalid_argument);
  EXPECT_THROW(simulate_schedule({-1}, {0}, 1), std::invalid_argument);
  EXPECT_THROW(simulate_schedule({NAN}, {0}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace sinklab::sweep
