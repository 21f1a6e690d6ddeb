// The busy-machine warning of `sinklab train` (core/thread_contention.h), on injected loads.
#include "core/thread_contention.h"

#include <gtest/gtest.h>

namespace sinklab {
namespace {

TEST(ThreadContention, OneThreadNeverWarns) {
  EXPECT_EQ(thread_contention_warning(1, {.load_average = 50, .cores = 2}), "");
  EXPECT_EQ(thread_contention_warning(1, {.load_average = 0, .cores = 1}), "");
}

TEST(ThreadContention, AnIdleMachineWithACoreForEachThreadDoesNotWarn) {
  EXPECT_EQ(thread_contention_warning(2, {.load_average = 0.0, .cores = 2}), "");
  EXPECT_EQ(thread_contention_warning(4, {.load_average = 3.9, .cores = 8}), "");
  EXPECT_EQ(thread_contention_warning(4, {.load_average = 4.0, .cores = 8}), "");  // exactly full
}

TEST(ThreadContention, ALoadThatLeavesTooFewCoresWarnsNamingThreadsCoresAndLoad) {
  const std::string w = thread_contention_warning(2, {.load_average = 20.39, .cores = 2});
  EXPECT_EQ(w.rfind("sinklab: warning: threads 2 on 2 cores with a load average of 20.39", 0), 0u) << w;
  EXPECT_NE(w.find("other programs are using the cores"), std::string::npos) << w;
  EXPECT_NE(w.find("--threads 1"), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << "one line";
  EXPECT_NE(thread_contention_warning(4, {.load_average = 4.01, .cores = 8}), "");
}

TEST(ThreadContention, MoreThreadsThanCoresWarnsOnAnIdleMachine) {
  const std::string w = thread_contention_warning(3, {.load_average = 0, .cores = 2});
  EXPECT_NE(w.find("more threads than cores"), std::string::npos) << w;
  EXPECT_NE(thread_contention_warning(2, {.load_average = 0, .cores = 1}).find("1 core with"), std::string::npos);
}

TEST(ThreadContention, ThisMachinesLoadReads) {
  const auto load = machine_load();
  ASSERT_TRUE(load.has_value()) << "/proc/loadavg is readable on Linux";
  EXPECT_GE(load->load_average, 0.0);
  EXPECT_GE(load->cores, 1);
}

}  // namespace
}  // namespace sinklab
